import ArgumentParser
import BraidKafka
import BraidRedis
import BraidRuntime
import BraidSources
import BraidWorker
import Logging
import ServiceLifecycle
import UnixSignals

/// `braid worker`: one precompute worker. Start more processes to scale (up to the
/// partition count of the requests topic); they share the work through the consumer group.
struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Consume precompute requests and materialize rankings and feed components into Redis.",
        discussion: "SIGTERM or Ctrl-C: stops fetching, finishes in-flight requests, commits, leaves the group, exits 0.")

    @OptionGroup var config: ConfigurationOption

    func run() async throws {
        let configuration = try config.loadForService()
        try LibrdkafkaVersion.requireSupported()
        let logger = Logger(label: "braid.worker")
        logger.info("starting", metadata: ["librdkafka": "\(LibrdkafkaVersion.loaded)", "group": "\(configuration.kafka.consumerGroup)"])

        let redis = RedisClient(configuration: try configuration.redis.clientConfiguration())
        let store = PrecomputeStore(redis: redis, keys: configuration.redis.cacheKeys)
        let source = try SearchSourceFactory.make(configuration.search)
        let provider = SQLiteComponentProvider(path: configuration.search.sqlitePath)
        let processor = RequestProcessor(
            rankings: RankingMaterializer(store: store, source: source, rankings: try configuration.materializedRankings()),
            components: ComponentMaterializer(
                store: store, provider: provider, feeds: configuration.materializedFeeds(),
                storedItems: configuration.worker.componentItems))
        let producer = try KafkaProducer(configuration: configuration.kafka.producer(clientID: "braid-worker"))
        let deadLetters = DeadLetterPublisher(producer: producer, topic: configuration.kafka.deadLetterTopic)
        let workerConfiguration = PrecomputeWorker.Configuration(
            concurrency: configuration.worker.concurrency,
            retry: RetryPolicy(maxAttempts: configuration.worker.maxAttempts, initialBackoff: .milliseconds(configuration.worker.retryBackoffMs)))
        var consumerConfiguration = configuration.kafka.workerConsumer()
        consumerConfiguration.statisticsIntervalMilliseconds = 5_000
        let worker = PrecomputeWorker(
            consumer: try KafkaConsumer(configuration: consumerConfiguration), deadLetters: deadLetters, processor: processor,
            store: store, configuration: workerConfiguration, logger: logger)
        // Team-draft events: a group of their own, so request backlogs never delay credit.
        let events = PrecomputeWorker(
            consumer: try KafkaConsumer(configuration: configuration.kafka.eventsConsumer()), deadLetters: deadLetters,
            processor: EventProcessor(store: ExperimentStore(redis: redis, keys: configuration.redis.cacheKeys)), store: store,
            configuration: workerConfiguration, logger: Logger(label: "braid.worker.events"))
        let metrics = MetricsEndpoint.service(
            host: configuration.worker.metricsHost, port: configuration.worker.metricsPort, logger: Logger(label: "braid.worker.metrics"))

        // Shut down in reverse order: the worker drains first (it still needs Redis and the
        // dead-letter producer), the producer flushes last.
        let group = ServiceGroup(
            configuration: .init(
                services: [producer, redis, metrics, worker, events], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
        try? await source.shutdown()
        try? await provider.shutdown()
    }
}
