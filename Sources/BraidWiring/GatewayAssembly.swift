import BraidConfig
import BraidContracts
import BraidCore
import BraidExperiments
import BraidGateway
import BraidKafka
import BraidPrecompute
import BraidRedis
import BraidSources
import Hummingbird
import Logging
import ServiceLifecycle

/// The gateway assembled from configuration: its clients, services and routes.
///
/// Run ``clients``, ``application(logger:onServerRunning:)`` and ``drain`` in one `ServiceGroup`,
/// in that order (the group shuts down in reverse: `/readyz` fails for the drain, the HTTP server
/// drains, then Redis stops, then the producer flushes), and call ``shutdown()`` after the group
/// has returned.
public struct GatewayAssembly: Sendable {
    public let routes: GatewayRoutes
    public let redis: RedisClient
    public let producer: KafkaProducer
    public let source: any SearchSource
    /// Component contents: banners from `campaigns`, the rest from the corpus.
    public let provider: FeedComponentProvider
    let corpus: any ComponentProvider
    let configuration: BraidConfiguration
    /// Services of the gateway besides the HTTP server (the console's experiment sampler, the
    /// JWKS refresher, the layout experiments' design check).
    public let background: [any Service]
    /// Keeps snapshot pointers and components' versions current (`gateway.key_tracking`);
    /// one of ``background``.
    public let keyTracker: RedisKeyTracker?
    /// The layout experiments' design check (also among the background services); nil without any.
    public let layoutClaim: LayoutDesignClaim?
    /// The sockets it binds, resolved and checked (``BraidConfiguration/validateExposure(of:resolve:)``).
    public let listeners: [ResolvedListener]

    /// Refuses (throws) before anything is built when the configuration is unsafe for the
    /// addresses it listens on.
    public init(configuration: BraidConfiguration, logger: Logger = Logger(label: "braid.gateway")) throws {
        self.configuration = configuration
        let listeners = try configuration.validateExposure(of: .gateway)
        self.listeners = listeners
        // Before any client: a design that does not fit its max_sessions stops the gateway here.
        let designs = try configuration.experimentDesigns()
        let layoutDesigns = try configuration.layoutExperimentDesigns()
        let redis = try configuration.redis.makeClient()
        let keys = configuration.redis.cacheKeys
        let store = PrecomputeStore(redis: redis, keys: keys)
        let source = SearchSourceFactory.make(configuration.search)
        let corpus = configuration.componentProvider()
        let provider = FeedComponentProvider(campaigns: configuration.campaigns, corpus: corpus)
        let producer = try configuration.kafka.makeProducer(clientID: "braid-gateway")
        let requests = DeduplicatingPublisher(
            publisher: RequestPublisher(producer: producer, topic: configuration.kafka.requestsTopic), redis: redis, keys: keys)
        let gateway = configuration.gateway
        let retired = gateway.previousCursorKeyExpiry.map { RetiredKey(key: gateway.previousCursorKey, until: $0) }
        let retiredImpressions = gateway.previousImpressionKeyExpiry.map { RetiredKey(key: gateway.previousImpressionKey, until: $0) }
        let codec = CursorCodec(key: gateway.cursorKey, retired: retired)
        let impressions = ImpressionCodec(key: gateway.impressionKey, retired: retiredImpressions)
        let liveTimeout = gateway.liveTimeout
        let cursorTTLSeconds = Int(gateway.cursorTtl.wholeSeconds)
        let halving = Int(gateway.admission.halving.wholeSeconds)
        let admission = PrecomputeAdmission(
            threshold: gateway.admission.threshold, halvingSeconds: halving, sketchWidth: gateway.admission.sketchWidth,
            shared: gateway.admission.shared
                ? SharedSightings(redis: redis, keys: keys, width: gateway.admission.sketchWidth, halvingSeconds: halving) : nil)
        var background: [any Service] = [EvictionPolicyWatch(redis: redis, logger: Logger(label: "braid.gateway.redis"))]
        let tracked = gateway.keyTracking ? TrackedVersions() : nil
        let keyTracker = tracked.map { tracked in
            RedisKeyTracker(
                client: redis, prefixes: keys.trackedPrefixes, observer: tracked, heartbeat: gateway.keyTrackingHeartbeat,
                logger: Logger(label: "braid.gateway.tracking"))
        }
        if let keyTracker { background.append(keyTracker) }
        if gateway.memoryTrim > .zero {
            background.append(MemoryTrimmer(interval: gateway.memoryTrim, logger: Logger(label: "braid.gateway.memory")))
        }
        let search = SearchService(
            arms: try configuration.armSelector(),
            snapshots: SnapshotReader(
                store: store, nearCacheBytes: gateway.nearCacheBytes, pointerTTL: gateway.pointerCache, tracked: tracked),
            misses: SnapshotMisses(
                materializer: RankingMaterializer(store: store, source: source, rankings: configuration.materializedRankings),
                requests: requests, admission: admission,
                lease: SnapshotLease(redis: redis, keys: keys, ttl: gateway.missLeaseTtl, wait: gateway.missLeaseWait), logger: logger),
            source: source, codec: codec, impressions: impressions, cursorTTLSeconds: cursorTTLSeconds,
            liveTimeout: liveTimeout, walks: gateway.walkMaxBytes > 0 ? WalkStore(redis: redis, keys: keys, maxBytes: gateway.walkMaxBytes) : nil,
            broadSearchConcurrency: gateway.broadSearchConcurrency, placedPositionsBytes: gateway.nearCacheBytes / 16, logger: logger)
        let refreshAhead = gateway.refreshAhead > .zero
            ? ComponentRefreshAhead(policy: EarlyRefresh(delta: gateway.refreshAhead.inSeconds), requests: requests) : nil
        if let refreshAhead { background.append(refreshAhead) }
        let components = ComponentService(
            feeds: configuration.feeds, store: store, provider: provider, search: search, requests: requests, codec: codec,
            cursorTTLSeconds: cursorTTLSeconds, storedItems: configuration.worker.componentItems, liveTimeout: liveTimeout,
            nearCacheBytes: gateway.nearCacheBytes, admission: admission, tracked: tracked, layoutImpressions: impressions,
            refreshAhead: refreshAhead, logger: logger)
        let events = EventService(
            codec: impressions, producer: producer, topic: configuration.kafka.eventsTopic,
            experiments: ExperimentStore(redis: redis, keys: keys), windowSeconds: Int(gateway.impressionWindow.wholeSeconds),
            designs: designs, feeds: configuration.feeds, layouts: layoutDesigns, logger: logger)
        let layoutStatus = layoutDesigns.isEmpty ? nil : LayoutDesignClaim.Status()
        let layoutClaim = layoutStatus.map { status in
            LayoutDesignClaim(
                designs: layoutDesigns.values.sorted { $0.experiment < $1.experiment }, store: LayoutExperimentStore(redis: redis, keys: keys),
                status: status, logger: logger)
        }
        if let layoutClaim { background.append(layoutClaim) }
        self.layoutClaim = layoutClaim
        var console: ConsoleRoutes?
        if configuration.console.enabled {
            let settings = configuration.consoleSettings
            let history = ExperimentHistory(
                experiments: search.arms.weightedArms.filter { $0.arm.configuration.mode == .teamDraft }.map(\.arm.name),
                samples: settings.samples, interval: settings.sampleInterval, shared: SharedExperimentHistory(redis: redis, keys: keys))
            let workers = WorkerStatusCollector(
                brokers: configuration.kafka.brokers, properties: configuration.kafka.properties, redis: redis, keys: keys, settings: settings)
            console = ConsoleRoutes(settings: settings, history: history, workers: workers, search: search, layoutExperiments: Array(layoutDesigns.keys))
            background.append(ExperimentSampler(history: history, events: events))
        }
        let limits = configuration.rateLimiter(redis: redis)
        if let shared = limits?.shared { background.append(shared) }
        let (identity, refresher) = configuration.userIdentity()
        if let refresher { background.append(refresher) }
        self.routes = GatewayRoutes(
            search: search, components: components, events: events, readiness: Readiness(redis: redis, source: source, layoutDesigns: layoutStatus),
            defaultPerPage: gateway.defaultPerPage, batchTimeout: gateway.batchTimeout, console: console,
            tracing: configuration.tracing.enabled, identity: identity, access: configuration.accessPolicy(listeners: listeners),
            rateLimiter: limits?.limiter)
        self.background = background
        self.keyTracker = keyTracker
        self.redis = redis
        self.producer = producer
        self.source = source
        self.provider = provider
        self.corpus = corpus
    }

    /// The HTTP server on `gateway.host:gateway.port` (port 0: any free port, reported to
    /// `onServerRunning`), bound at the address that was checked, with the `http.*` limits.
    public func application(
        logger: Logger = Logger(label: "braid.gateway.http"), onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let limits = configuration.httpLimits
        let listener = listeners[0]
        return Application(
            router: routes.router(), server: limits.server, configuration: limits.configuration(host: listener.address, port: listener.port),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) }, logger: logger)
    }

    /// The admin listener (`gateway.admin_host:gateway.admin_port`), when configured: the
    /// admin surface and the public routes behind the admin credentials.
    public func adminApplication(
        logger: Logger = Logger(label: "braid.gateway.admin"), onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> (any Service)? {
        guard let listener = listeners.first(where: { $0.role == .gatewayAdmin }) else { return nil }
        let limits = configuration.httpLimits
        return Application(
            router: routes.adminRouter(), server: limits.server,
            configuration: limits.configuration(host: listener.address, port: listener.port),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) }, logger: logger)
    }

    /// Clients the routes need running, in start order, then the background services.
    public var clients: [any Service] { [producer, redis] + background }

    /// Put last in the group, after the HTTP servers: stopping, it fails `/readyz` for
    /// `gateway.drain_ms` before the servers stop.
    public var drain: any Service {
        ReadinessDrain(readiness: routes.readiness, duration: configuration.gateway.drain, logger: Logger(label: "braid.gateway"))
    }

    /// Closes the live backends after the services have stopped.
    public func shutdown() async {
        try? await source.shutdown()
        try? await corpus.shutdown()
    }
}
