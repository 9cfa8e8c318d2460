import AsyncHTTPClient
import BraidConfig
import BraidGateway
import BraidCore
import BraidExperiments
import BraidKafka
import BraidObservability
import BraidPrecompute
import BraidRedis
import BraidSources
import BraidWorker
import Hummingbird
import Logging
import NIOCore
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
    /// Deletes expired walk records and impression states (one worker of the fleet per interval).
    public let retention: RetentionSweeper
    let evictionPolicy: EvictionPolicyWatch
    let source: any SearchSource
    let provider: any ComponentProvider
    /// The HTTP sources' client: one connection per concurrent request (the shared client
    /// keeps 8 per host, which would cap an I/O-bound worker at 8 requests at once).
    let httpClient: HTTPClient

    /// Refuses (throws) before anything is built when the configuration is unsafe for the
    /// address its metrics listen on.
    public init(configuration: BraidConfiguration, logger: Logger = Logger(label: "braid.worker")) throws {
        let listener = try configuration.validateExposure(of: .worker)[0]
        let redis = try configuration.redis.makeClient()
        let keys = configuration.redis.cacheKeys
        let store = PrecomputeStore(redis: redis, keys: keys)
        let worker = configuration.worker
        var clientConfiguration = HTTPClient.Configuration()
        clientConfiguration.connectionPool = .init(
            idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: max(8, worker.concurrency))
        let httpClient = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: clientConfiguration)
        var created = false
        // A client dropped without shutdown asserts: shut it down if anything below throws.
        defer { if !created { try? httpClient.syncShutdown() } }
        let source = SearchSourceFactory.make(configuration.search, client: httpClient)
        let provider = configuration.componentProvider()
        let rankings = RankingMaterializer(store: store, source: source, rankings: configuration.materializedRankings)
        let processor = RequestProcessor(
            rankings: rankings,
            components: ComponentMaterializer(
                store: store, provider: FeedComponentProvider(campaigns: configuration.campaigns, corpus: provider),
                feeds: configuration.materializedFeeds, storedItems: configuration.worker.componentItems, rankings: rankings))
        let producer = try configuration.kafka.makeProducer(clientID: "braid-worker")
        let deadLetters = DeadLetterPublisher(producer: producer, topic: configuration.kafka.deadLetterTopic)
        let workerConfiguration = configuration.workerConfiguration
        var consumerConfiguration = configuration.kafka.workerConsumer()
        consumerConfiguration.statisticsIntervalMilliseconds = 5_000
        consumerConfiguration.maxReadAheadPerPartition = worker.readAheadPerPartition
        var eventsConfiguration = configuration.kafka.eventsConsumer()
        eventsConfiguration.maxReadAheadPerPartition = worker.readAheadPerPartition
        self.requests = try PrecomputeWorker(
            consumer: consumerConfiguration, deadLetters: deadLetters, processor: processor,
            store: store, configuration: workerConfiguration, logger: logger)
        self.events = try PrecomputeWorker(
            consumer: eventsConfiguration, deadLetters: deadLetters,
            processor: EventProcessor(store: ExperimentStore(redis: redis, keys: keys)), store: store,
            configuration: workerConfiguration, logger: Logger(label: "braid.worker.events"))
        let limits = configuration.httpLimits
        self.metrics = Application(
            router: MetricsEndpoint.router(token: configuration.admin.token.text), server: limits.server,
            configuration: limits.configuration(host: listener.address, port: listener.port), logger: Logger(label: "braid.worker.metrics"))
        self.retention = RetentionSweeper(
            sweep: RetentionSweep(redis: redis, keys: keys), interval: worker.retentionSweep, logger: Logger(label: "braid.worker.retention"))
        self.evictionPolicy = EvictionPolicyWatch(redis: redis, logger: Logger(label: "braid.worker.redis"))
        self.redis = redis
        self.producer = producer
        self.source = source
        self.provider = provider
        self.httpClient = httpClient
        created = true
    }

    /// Every long-running part, in start order.
    public var services: [any Service] { [producer, redis, metrics, evictionPolicy, retention, requests, events] }

    /// Closes the live backends after the services have stopped.
    public func shutdown() async {
        try? await source.shutdown()
        try? await provider.shutdown()
        try? await httpClient.shutdown()
    }
}
