import BraidConfig
import BraidKafka
import BraidObservability
import BraidPrecompute
import BraidRedis
import BraidSources
import BraidWorker
import Logging
import ServiceLifecycle

/// A worker process assembled from configuration: a member of the requests group, a member
/// of the events group (team-draft credit, a group of its own so request backlogs never delay
/// credit), the clients they share and the metrics endpoint.
///
/// Run ``services`` in one `ServiceGroup` in this order (it shuts down in reverse: the workers
/// drain first, while Redis and the dead-letter producer still run; the producer flushes
/// last), and call ``shutdown()`` after the group has returned.
public struct WorkerAssembly: Sendable {
    public let redis: RedisClient
    public let producer: KafkaProducer
    public let requests: PrecomputeWorker
    public let events: PrecomputeWorker
    let metrics: any Service
    let source: any SearchSource
    let provider: SQLiteComponentProvider

    public init(configuration: BraidConfiguration, logger: Logger = Logger(label: "braid.worker")) throws {
        let redis = RedisClient(configuration: try configuration.redis.clientConfiguration())
        let keys = configuration.redis.cacheKeys
        let store = PrecomputeStore(redis: redis, keys: keys)
        let source = SearchSourceFactory.make(configuration.search)
        let provider = SQLiteComponentProvider(path: configuration.search.sqlitePath)
        let rankings = RankingMaterializer(store: store, source: source, rankings: configuration.materializedRankings)
        let processor = RequestProcessor(
            rankings: rankings,
            components: ComponentMaterializer(
                store: store, provider: FeedComponentProvider(campaigns: configuration.campaigns, corpus: provider),
                feeds: configuration.materializedFeeds, storedItems: configuration.worker.componentItems, rankings: rankings))
        let producer = try KafkaProducer(configuration: configuration.kafka.producer(clientID: "braid-worker"))
        let deadLetters = DeadLetterPublisher(producer: producer, topic: configuration.kafka.deadLetterTopic)
        let worker = configuration.worker
        let workerConfiguration = PrecomputeWorker.Configuration(
            concurrency: worker.concurrency,
            retry: RetryPolicy(maxAttempts: worker.maxAttempts, initialBackoff: .milliseconds(worker.retryBackoffMs)))
        var consumerConfiguration = configuration.kafka.workerConsumer()
        consumerConfiguration.statisticsIntervalMilliseconds = 5_000
        self.requests = PrecomputeWorker(
            consumer: try KafkaConsumer(configuration: consumerConfiguration), deadLetters: deadLetters, processor: processor,
            store: store, configuration: workerConfiguration, logger: logger)
        self.events = PrecomputeWorker(
            consumer: try KafkaConsumer(configuration: configuration.kafka.eventsConsumer()), deadLetters: deadLetters,
            processor: EventProcessor(store: ExperimentStore(redis: redis, keys: keys)), store: store,
            configuration: workerConfiguration, logger: Logger(label: "braid.worker.events"))
        self.metrics = MetricsEndpoint.service(
            host: worker.metricsHost, port: worker.metricsPort, logger: Logger(label: "braid.worker.metrics"))
        self.redis = redis
        self.producer = producer
        self.source = source
        self.provider = provider
    }

    /// Every long-running part, in start order.
    public var services: [any Service] { [producer, redis, metrics, requests, events] }

    /// Closes the live backends after the services have stopped.
    public func shutdown() async {
        try? await source.shutdown()
        try? await provider.shutdown()
    }
}
