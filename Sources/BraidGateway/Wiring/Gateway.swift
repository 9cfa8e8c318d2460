import BraidCore
import BraidKafka
import BraidRedis
import BraidRuntime
import BraidSources
import BraidWorker
import Hummingbird
import Logging
import ServiceLifecycle

/// The gateway assembled from configuration: its clients, services and routes.
///
/// Run ``services`` in one `ServiceGroup` (the order is the shutdown order reversed: the
/// HTTP server drains first, then Redis, then the producer flushes).
public struct Gateway: Sendable {
    public let routes: GatewayRoutes
    public let redis: RedisClient
    public let producer: KafkaProducer
    public let source: any SearchSource
    public let provider: SQLiteComponentProvider
    let configuration: BraidConfiguration

    public init(configuration: BraidConfiguration, logger: Logger = Logger(label: "braid.gateway")) throws {
        self.configuration = configuration
        let redis = RedisClient(configuration: try configuration.redis.clientConfiguration())
        let store = PrecomputeStore(redis: redis, keys: configuration.redis.cacheKeys)
        let source = try SearchSourceFactory.make(configuration.search)
        let provider = SQLiteComponentProvider(path: configuration.search.sqlitePath)
        let producer = try KafkaProducer(configuration: configuration.kafka.producer(clientID: "braid-gateway"))
        let publisher = RequestPublisher(producer: producer, topic: configuration.kafka.requestsTopic)
        let gateway = configuration.gateway
        let codec = CursorCodec(key: Array(gateway.cursorKey.utf8))
        let liveTimeout = Duration.milliseconds(gateway.liveTimeoutMs)
        let search = SearchService(
            arms: try ArmSelector(configuration),
            snapshots: SnapshotReader(
                store: store, nearCacheBytes: gateway.nearCacheBytes, pointerTTL: .milliseconds(gateway.pointerCacheMs)),
            misses: SnapshotMisses(
                materializer: RankingMaterializer(store: store, source: source, rankings: try configuration.materializedRankings()),
                publisher: publisher, logger: logger),
            source: source, codec: codec, impressions: ImpressionCodec(key: Array(gateway.cursorKey.utf8)), cursorTTLSeconds: gateway.cursorTtlSeconds, liveTimeout: liveTimeout, logger: logger)
        let components = ComponentService(
            feeds: configuration.feeds, store: store, provider: provider, publisher: publisher, codec: codec,
            cursorTTLSeconds: gateway.cursorTtlSeconds, storedItems: configuration.worker.componentItems, liveTimeout: liveTimeout,
            nearCacheBytes: gateway.nearCacheBytes, logger: logger)
        let events = EventService(
            codec: ImpressionCodec(key: Array(gateway.cursorKey.utf8)), producer: producer, topic: configuration.kafka.eventsTopic,
            experiments: ExperimentStore(redis: redis, keys: configuration.redis.cacheKeys))
        self.routes = GatewayRoutes(
            search: search, components: components, events: events, readiness: Readiness(redis: redis, source: source),
            defaultPerPage: gateway.defaultPerPage, batchTimeout: .milliseconds(gateway.batchTimeoutMs))
        self.redis = redis
        self.producer = producer
        self.source = source
        self.provider = provider
    }

    /// The HTTP server on `gateway.host:gateway.port` (port 0: any free port, reported to
    /// `onServerRunning`).
    public func application(
        logger: Logger = Logger(label: "braid.gateway.http"), onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        Application(
            router: routes.router(),
            configuration: .init(address: .hostname(configuration.gateway.host, port: configuration.gateway.port), serverName: "braid"),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
            logger: logger)
    }

    /// Clients the routes need running, in start order.
    public var clients: [any Service] { [producer, redis] }

    /// Closes the live backends after the services have stopped.
    public func shutdown() async {
        try? await source.shutdown()
        try? await provider.shutdown()
    }
}
