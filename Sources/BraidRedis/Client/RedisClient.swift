import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// An async Redis client: pools of pipelined connections that reconnect by themselves, to
/// one server or to the primaries of a Redis Cluster, over plaintext or TLS.
///
/// Run it as a ServiceLifecycle `Service` (or call ``run()`` in a task): while it runs,
/// every pool slot keeps one connection up, reconnecting with jittered exponential backoff.
/// Commands never wait for a connection: with none up they fail at once with
/// ``RedisConnectionError/Kind/unavailable`` — a page can then be served degraded instead
/// of hanging.
///
/// In cluster mode (``RedisConfiguration/cluster``) each command goes to the primary serving
/// its keys' slot; typed commands know their keys, a raw ``send(_:timeout:)`` is routed by
/// ``RedisCommandKeys``, and ``send(_:keys:timeout:)`` names the keys explicitly. Keys of one
/// command must share a slot (a hash tag `{…}`), or the command fails with
/// ``RedisRoutingError`` without being sent. MOVED, ASK, TRYAGAIN and NOSCRIPT are handled
/// inside the client.
public final class RedisClient: Service, Sendable {
    public let configuration: RedisConfiguration
    private let topology: Topology
    private let connector: RedisNodeConnector

    private enum Topology: Sendable {
        case standalone(RedisNodePool)
        case cluster(ClusterRouter)
    }

    public convenience init(
        configuration: RedisConfiguration,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "braid.redis")
    ) {
        self.init(configuration: configuration, eventLoopGroup: eventLoopGroup, logger: logger, transport: .tcp)
    }

    /// A client whose connections open over `transport` (tests: scripted in-memory nodes).
    init(configuration: RedisConfiguration, eventLoopGroup: any EventLoopGroup, logger: Logger, transport: RedisTransport) {
        self.configuration = configuration
        let connector = RedisNodeConnector(configuration: configuration, group: eventLoopGroup, transport: transport)
        self.connector = connector
        if configuration.cluster != nil {
            topology = .cluster(ClusterRouter(configuration: configuration, connector: connector, logger: logger))
        } else {
            topology = .standalone(
                RedisNodePool(endpoint: RedisEndpoint(host: configuration.host, port: configuration.port), connector: connector, logger: logger))
        }
    }

    /// Whether this client routes over a Redis Cluster.
    public var isCluster: Bool {
        if case .cluster = topology { return true }
        return false
    }

    /// Keeps the pools connected (and, in a cluster, the slot map current) until cancelled
    /// or gracefully shut down, then closes them.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            switch self.topology {
            case .standalone(let pool): await pool.run()
            case .cluster(let router): await router.run()
            }
        }
    }

    /// Waits until the client can serve commands (start-up readiness): a connection is up,
    /// and in a cluster the slot map is known and every primary has a connection. Throws
    /// ``RedisConnectionError``: at once for a TLS problem (it will not go away by waiting),
    /// otherwise ``RedisConnectionError/Kind/unavailable`` after `timeout`, naming the cause.
    public func waitUntilConnected(timeout: Duration = .seconds(10)) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            let readiness = readiness()
            guard case .failure(let cause) = readiness else { return }
            if let permanent = permanentFailure() { throw permanent }
            guard clock.now < deadline else {
                throw RedisConnectionError(.unavailable, "not connected within \(timeout): \(cause.message)")
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    private func readiness() -> Result<Void, RedisConnectionError> {
        switch topology {
        case .standalone(let pool):
            return pool.liveConnection() != nil ? .success(()) : .failure(pool.unavailableError())
        case .cluster(let router):
            return router.readiness()
        }
    }

    private func permanentFailure() -> RedisConnectionError? {
        if case .failure(let error) = connector.tls { return error }
        switch topology {
        case .standalone(let pool): return pool.lastError.flatMap { $0.kind == .tls ? $0 : nil }
        case .cluster(let router): return router.permanentFailure()
        }
    }

    // MARK: Sending

    /// Sends a command and returns its reply; an error reply is thrown as ``RedisServerError``.
    ///
    /// In cluster mode the keys are found with ``RedisCommandKeys``; a command it does not
    /// know, or whose keys span slots, throws ``RedisRoutingError`` and is not sent.
    public func send(_ arguments: [RESPArgument], timeout: Duration? = nil) async throws -> RESPValue {
        switch topology {
        case .standalone(let pool):
            return try await Self.check(send(arguments, on: pool, timeout: timeout))
        case .cluster(let router):
            let target: ClusterRouter.Target = try RedisCommandKeys.slot(of: arguments).map { .slot($0) } ?? .anyPrimary
            return try await Self.check(router.send(arguments, to: target, timeout: timeout ?? configuration.commandTimeout))
        }
    }

    /// Sends a command whose keys the caller names (for commands ``RedisCommandKeys`` does
    /// not know; `keys: []` for a key-less one, which goes to any primary). Standalone mode
    /// ignores `keys`; in cluster mode keys in different slots throw ``RedisRoutingError``.
    public func send(_ arguments: [RESPArgument], keys: [String], timeout: Duration? = nil) async throws -> RESPValue {
        try await send(arguments, keys: keys, script: nil, timeout: timeout)
    }

    /// Sends a command to one node: in a cluster, one of ``primaries()`` (SCAN, INFO or
    /// DBSIZE per node); standalone, the server. MOVED and ASK replies are still followed.
    public func send(_ arguments: [RESPArgument], node: RedisEndpoint, timeout: Duration? = nil) async throws -> RESPValue {
        switch topology {
        case .standalone(let pool):
            return try await Self.check(send(arguments, on: pool, timeout: timeout))
        case .cluster(let router):
            return try await Self.check(router.send(arguments, to: .node(node), timeout: timeout ?? configuration.commandTimeout))
        }
    }

    /// The nodes that hold data: the primaries of the cluster's current slot map (empty
    /// until it is known), or the one server.
    public func primaries() -> [RedisEndpoint] {
        switch topology {
        case .standalone(let pool): [pool.endpoint]
        case .cluster(let router): router.primaries
        }
    }

    /// Changes whenever the cluster's slot map does (a failover, a reshard); always 0
    /// standalone. Caches that rely on per-node state (key tracking) flush when it changes.
    public var topologyGeneration: Int {
        if case .cluster(let router) = topology { return router.mapGeneration }
        return 0
    }

    /// Opens a connection of its own to `node` (not from a pool) with the client's settings,
    /// handing Pub/Sub messages to `pushes` once it subscribes. Throws ``RedisConnectionError``.
    func dedicatedConnection(to node: RedisEndpoint, pushes: @escaping @Sendable (RESPValue) -> Void) async throws -> RedisConnection {
        try await connector.connect(to: node, pushes: pushes)
    }

    /// Slots that a primary serves in the cluster's current map; nil standalone or before
    /// the first map.
    var clusterCoverage: Int? {
        if case .cluster(let router) = topology { return router.coveredSlots }
        return nil
    }

    /// The node that serves `key` now: its slot's primary, or the one server; nil while
    /// the cluster map is unknown or the slot unserved.
    public func node(forKey key: String) -> RedisEndpoint? {
        switch topology {
        case .standalone(let pool): pool.endpoint
        case .cluster(let router): router.primary(forSlot: RedisHashSlot.slot(of: key))
        }
    }

    /// The routed send behind typed commands and ``evalsha(_:keys:arguments:)``; with a
    /// script, NOSCRIPT loads it (on the node that answered) and the command is sent again.
    func send(_ arguments: [RESPArgument], keys: [String], script: RedisScript?, timeout: Duration? = nil) async throws -> RESPValue {
        switch topology {
        case .standalone(let pool):
            let reply = try await send(arguments, on: pool, timeout: timeout)
            if let script, case .error(let message) = reply, message.hasPrefix("NOSCRIPT") {
                let loaded = try await Self.check(send(["SCRIPT", "LOAD", .string(script.source)], on: pool, timeout: timeout))
                guard loaded.string == script.sha1 else { throw RedisUnexpectedReplyError(command: "SCRIPT LOAD", reply: loaded) }
                return try await Self.check(send(arguments, on: pool, timeout: timeout))
            }
            return try Self.check(reply)
        case .cluster(let router):
            let command = arguments.first?.commandName ?? ""
            let target: ClusterRouter.Target = try RedisCommandKeys.slot(ofKeys: keys, command: command).map { .slot($0) } ?? .anyPrimary
            return try await Self.check(
                router.send(arguments, to: target, script: script, timeout: timeout ?? configuration.commandTimeout))
        }
    }

    private func send(_ arguments: [RESPArgument], on pool: RedisNodePool, timeout: Duration?) async throws -> RESPValue {
        guard let connection = pool.liveConnection() else { throw pool.unavailableError() }
        return try await connection.send(arguments, timeout: timeout ?? configuration.commandTimeout)
    }

    private static func check(_ reply: RESPValue) throws -> RESPValue {
        if case .error(let message) = reply { throw RedisServerError(message: message) }
        return reply
    }
}
