import Logging
import NIOCore
import Synchronization

/// The cluster mode of ``RedisClient``: a slot map, a connection pool per primary, and the
/// routing loop that follows MOVED, ASK, TRYAGAIN and NOSCRIPT.
///
/// Commands never wait for the map or a lost node: without a node for their slot they fail
/// at once as unavailable and ask for a refresh, so a page is served degraded for only as
/// long as no node answers for that slot. The map is re-read after MOVED, after a lost
/// connection and when a slot has no reachable primary; refreshes are coalesced and at least
/// ``RedisConfiguration/Cluster/minimumRefreshInterval`` apart.
final class ClusterRouter: Sendable {
    let configuration: RedisConfiguration
    let connector: RedisNodeConnector
    let logger: Logger
    let state = Mutex(State())
    private let nextPrimary = Atomic<Int>(0)
    let refreshRequests: (stream: AsyncStream<Void>, continuation: AsyncStream<Void>.Continuation)
    private let poolStarts: (stream: AsyncStream<RedisNodePool>, continuation: AsyncStream<RedisNodePool>.Continuation)

    struct State {
        var map: ClusterSlotMap?
        /// Bumped whenever a new map is installed.
        var epoch = 0
        /// Bumped whenever an installed map differs from the one before (a failover, a
        /// reshard): what key-tracking caches flush on.
        var generation = 0
        var pools: [RedisEndpoint: RedisNodePool] = [:]
        /// Why the last refresh found no usable map, for error messages.
        var refreshError: RedisConnectionError?
        /// Set once a node answered CLUSTER SHARDS with "unknown subcommand" (Redis < 7).
        var useClusterSlots = false
    }

    init(configuration: RedisConfiguration, connector: RedisNodeConnector, logger: Logger) {
        self.configuration = configuration
        self.connector = connector
        self.logger = logger
        self.refreshRequests = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.poolStarts = AsyncStream.makeStream(of: RedisNodePool.self)
    }

    private var cluster: RedisConfiguration.Cluster { configuration.cluster ?? .init() }

    /// Changes whenever the slot map does.
    var mapGeneration: Int { state.withLock { $0.generation } }

    /// Reads the map and keeps the pools of the primaries connected until cancelled.
    func run() async {
        requestRefresh()
        await withDiscardingTaskGroup { group in
            group.addTask { await self.refreshLoop() }
            for await pool in poolStarts.stream {
                group.addTask { await pool.run() }
            }
        }
        let pools = state.withLock { state in
            defer { state.pools = [:] }
            return Array(state.pools.values)
        }
        for pool in pools { pool.stop() }
    }

    // MARK: Routing

    /// Where a command goes.
    enum Target: Sendable, Equatable {
        /// The primary serving the slot.
        case slot(Int)
        /// Any primary (key-less commands).
        case anyPrimary
        /// This node, e.g. for SCAN on each primary.
        case node(RedisEndpoint)
    }

    /// Sends `arguments` to `target` and follows redirections; an error reply that is not a
    /// redirection is returned as a value. With `script`, a NOSCRIPT reply loads the
    /// script on the node that gave it and the command is sent again.
    ///
    /// TRYAGAIN (a multi-key command, e.g. a snapshot write that creates a key, while its
    /// slot is half moved) is retried with backoff until `timeout` has passed since the
    /// command began: Redis answers it for as long as the move takes, which is the operator's
    /// pace, not a handful of round trips.
    func send(_ arguments: [RESPArgument], to target: Target, script: RedisScript? = nil, timeout: Duration) async throws
        -> RESPValue
    {
        var target = target
        var asking = false
        var scriptLoadedOn: Set<RedisEndpoint> = []
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var tryAgainDelay = Duration.milliseconds(5)
        var attempt = 0
        while attempt <= cluster.maxRedirects {
            attempt += 1
            let pool = try resolve(target)
            guard let connection = await pool.connection(waitingIfNewFor: configuration.connectTimeout) else {
                requestRefresh()
                throw pool.unavailableError()
            }
            let reply: RESPValue
            do {
                reply = asking ? try await connection.sendAsking(arguments, timeout: timeout) : try await connection.send(arguments, timeout: timeout)
            } catch let error as RedisConnectionError {
                if error.kind != .timeout { requestRefresh() }
                throw error
            }
            guard case .error(let message) = reply else { return reply }
            if let redirection = ClusterRedirection(errorReply: message, from: pool.endpoint) {
                switch redirection {
                case .moved(let slot, let node):
                    noteMoved(slot: slot, to: node)
                    requestRefresh()
                    (target, asking) = (.node(node), false)
                case .ask(_, let node):
                    (target, asking) = (.node(node), true)
                case .tryAgain:
                    guard clock.now + tryAgainDelay < deadline else {
                        throw RedisConnectionError(
                            .unavailable, "slot of \(arguments.first?.commandName ?? "the command") still being migrated after \(timeout) (TRYAGAIN)")
                    }
                    try await Task.sleep(for: tryAgainDelay)
                    tryAgainDelay = min(tryAgainDelay * 2, .milliseconds(100))
                    attempt -= 1  // not a redirection: bounded by the deadline instead
                case .clusterDown:
                    requestRefresh()
                    throw RedisConnectionError(.unavailable, "the cluster does not serve this command now (\(message))")
                }
                continue
            }
            if let script, message.hasPrefix("NOSCRIPT"), !scriptLoadedOn.contains(pool.endpoint) {
                let loaded = try await connection.send(["SCRIPT", "LOAD", .string(script.source)], timeout: timeout)
                guard loaded.string == script.sha1 else { throw RedisUnexpectedReplyError(command: "SCRIPT LOAD", reply: loaded) }
                scriptLoadedOn.insert(pool.endpoint)
                continue
            }
            return reply
        }
        requestRefresh()
        throw RedisConnectionError(
            .unavailable, "\(arguments.first?.commandName ?? "the command") was redirected \(cluster.maxRedirects) times (slots moving?)")
    }

    /// The pool for a target. Pools exist for the map's primaries; a redirection to a node
    /// outside the map gets one on the spot.
    private func resolve(_ target: Target) throws(RedisConnectionError) -> RedisNodePool {
        switch target {
        case .node(let endpoint):
            return pool(for: endpoint)
        case .slot(let slot):
            let (primary, mapLoaded) = state.withLock { ($0.map?.primary(forSlot: slot), $0.map != nil) }
            guard let primary else {
                requestRefresh()
                throw mapLoaded
                    ? RedisConnectionError(.unavailable, "no cluster node serves slot \(slot) right now (failing over?)")
                    : mapUnavailableError()
            }
            return pool(for: primary)
        case .anyPrimary:
            let pools = state.withLock { state in state.map?.primaries.compactMap { state.pools[$0] } ?? [] }
            guard !pools.isEmpty else { throw mapUnavailableError() }
            let start = nextPrimary.add(1, ordering: .relaxed).oldValue
            for step in 0..<pools.count {
                let pool = pools[((start &+ step) & Int.max) % pools.count]
                if pool.liveConnection() != nil { return pool }
            }
            return pools[(start & Int.max) % pools.count]
        }
    }

    func mapUnavailableError() -> RedisConnectionError {
        let (cause, seeds) = (state.withLock { $0.refreshError }, configuration.clusterSeeds)
        if let cause, cause.kind == .tls { return cause }
        let reason = cause.map { ": \($0.message)" } ?? " yet"
        return RedisConnectionError(
            .unavailable, "no cluster slot map from \(seeds.map(\.description).joined(separator: ", "))\(reason)")
    }

    /// The pool of `endpoint`, created (and started by ``run()``) when missing.
    func pool(for endpoint: RedisEndpoint) -> RedisNodePool {
        let (pool, created) = state.withLock { state -> (RedisNodePool, Bool) in
            if let pool = state.pools[endpoint] { return (pool, false) }
            let pool = makePool(endpoint)
            state.pools[endpoint] = pool
            return (pool, true)
        }
        if created { startPool(pool) }
        return pool
    }

    func makePool(_ endpoint: RedisEndpoint) -> RedisNodePool {
        RedisNodePool(endpoint: endpoint, connector: connector, logger: logger) { [weak self] _ in self?.requestRefresh() }
    }

    /// Hands a new pool to ``run()``, which keeps it connected.
    func startPool(_ pool: RedisNodePool) {
        poolStarts.continuation.yield(pool)
    }

    /// After MOVED: route the slot to its new node at once, ahead of the refresh.
    private func noteMoved(slot: Int, to node: RedisEndpoint) {
        state.withLock { state in state.map?.assign(slot: slot, to: node) }
    }

    // MARK: Readiness and introspection

    /// The primaries of the current map (empty before the first map).
    var primaries: [RedisEndpoint] { state.withLock { $0.map?.primaries ?? [] } }

    /// The primary serving `slot` in the current map.
    func primary(forSlot slot: Int) -> RedisEndpoint? { state.withLock { $0.map?.primary(forSlot: slot) } }

    /// Slots some primary serves in the current map; nil before the first map.
    var coveredSlots: Int? { state.withLock { $0.map?.coveredSlots } }

    /// Whether the map is known and every primary has a connection up; otherwise why not.
    func readiness() -> Result<Void, RedisConnectionError> {
        let (map, pools) = state.withLock { ($0.map, $0.pools) }
        guard let map else { return .failure(mapUnavailableError()) }
        guard map.isComplete else {
            return .failure(RedisConnectionError(.unavailable, "the cluster serves \(map.coveredSlots) of \(RedisHashSlot.count) slots"))
        }
        for primary in map.primaries {
            guard let pool = pools[primary] else { return .failure(RedisConnectionError(.unavailable, "no pool for \(primary) yet")) }
            if pool.liveConnection() == nil { return .failure(pool.unavailableError()) }
        }
        return .success(())
    }

    /// A TLS error that waiting will not cure, from the map refresh or a primary's pool.
    func permanentFailure() -> RedisConnectionError? {
        let (refreshError, pools) = state.withLock { ($0.refreshError, Array($0.pools.values)) }
        if let refreshError, refreshError.kind == .tls { return refreshError }
        return pools.lazy.compactMap(\.lastError).first { $0.kind == .tls }
    }
}
