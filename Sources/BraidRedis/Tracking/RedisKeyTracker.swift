import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// What a ``RedisKeyTracker`` tells the cache it keeps current.
public protocol RedisInvalidationObserver: Sendable {
    /// Keys under a tracked prefix were written, deleted, expired or evicted. Called on a
    /// connection's event loop, as the message arrives: keep it short.
    func invalidate(keys: [String])
    /// Anything cached may have changed unseen. `tracking` says whether invalidations now
    /// flow from every primary: while it is false, nothing may be kept on their strength.
    func invalidateAll(tracking: Bool, reason: RedisKeyTracker.FlushReason)
}

/// Server-assisted invalidation: keeps, on each primary, one connection of its own in
/// broadcast tracking mode for `prefixes` (`CLIENT TRACKING ON REDIRECT <own id> BCAST
/// PREFIX …`) subscribed to `__redis__:invalidate`, and passes what arrives to an observer.
///
/// Broadcast mode, because the pooled connections that read the keys then need no tracking
/// state of their own: Redis keeps no per-key table of readers, nothing has to be issued
/// again on every pool connection when this one reconnects with a new client id, and a
/// reader in another process (or a new version written by a worker) is covered alike. The
/// cost, a message for every write under the prefixes whether or not it was read, is small
/// when the prefixes name only pointer-like keys.
///
/// Everything that could hide an invalidation ends in ``RedisInvalidationObserver/invalidateAll(tracking:reason:)``:
/// a tracking connection that closes or misses a heartbeat, a node that joins or leaves, a
/// changed slot map (a failover, a reshard), a `FLUSHALL` (a null message), and the tracker
/// stopping. Tracking is on again once every primary's connection is subscribed.
public final class RedisKeyTracker: Service, Sendable {
    /// Why everything cached was dropped.
    public enum FlushReason: String, Sendable, CaseIterable {
        /// Every primary's tracking connection is subscribed: from now on invalidations flow.
        case tracking
        /// A tracking connection closed or missed a heartbeat.
        case connectionLost = "connection_lost"
        /// A primary joined or left, or the slot map changed.
        case topologyChanged = "topology_changed"
        /// A node was flushed (`FLUSHALL`, `FLUSHDB`).
        case flushed
        /// The tracker stopped.
        case stopped
    }

    public let prefixes: [String]
    /// How often each tracking connection is checked with a PING (and how long the answer
    /// may take): a connection that went silent is noticed within twice this.
    public let heartbeat: Duration
    private let client: RedisClient
    private let observer: any RedisInvalidationObserver
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        var nodes: Set<RedisEndpoint> = []
        var generation = -1
        /// The subscribed tracking connection of each node that has one.
        var live: [RedisEndpoint: ObjectIdentifier] = [:]
        var tracking = false

        mutating func updateTracking() {
            tracking = !nodes.isEmpty && Set(live.keys) == nodes
        }
    }

    public init(
        client: RedisClient, prefixes: [String], observer: any RedisInvalidationObserver, heartbeat: Duration = .milliseconds(500),
        logger: Logger = Logger(label: "braid.redis.tracking")
    ) {
        self.client = client
        self.prefixes = prefixes
        self.observer = observer
        self.heartbeat = heartbeat
        self.logger = logger
    }

    /// Whether invalidations flow from every primary now.
    public var isTracking: Bool { state.withLock { $0.tracking } }

    /// Follows the client's primaries, one tracking connection each, until cancelled or
    /// gracefully shut down; then tells the observer to drop everything.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                while !Task.isCancelled {
                    for endpoint in self.reconcile() {
                        group.addTask { await self.track(endpoint) }
                    }
                    try? await Task.sleep(for: self.heartbeat)
                }
                group.cancelAll()
            }
        }
        state.withLock {
            $0.tracking = false
            $0.live = [:]
        }
        observer.invalidateAll(tracking: false, reason: .stopped)
    }

    /// Compares the client's primaries and slot map with the last seen; on a change, flushes
    /// and returns the nodes that need a tracking connection.
    private func reconcile() -> [RedisEndpoint] {
        let nodes = Set(client.primaries())
        let generation = client.topologyGeneration
        let (added, changed, tracking) = state.withLock { state -> ([RedisEndpoint], Bool, Bool) in
            guard nodes != state.nodes || generation != state.generation else { return ([], false, state.tracking) }
            let added = nodes.subtracting(state.nodes)
            let hadNodes = state.generation >= 0
            state.nodes = nodes
            state.generation = generation
            state.live = state.live.filter { nodes.contains($0.key) }
            state.updateTracking()
            return (Array(added), hadNodes, state.tracking)
        }
        if changed { observer.invalidateAll(tracking: tracking, reason: .topologyChanged) }
        return added
    }

    private func isWanted(_ endpoint: RedisEndpoint) -> Bool {
        state.withLock { $0.nodes.contains(endpoint) }
    }

    /// Keeps one tracking connection to `endpoint` while it is a primary.
    private func track(_ endpoint: RedisEndpoint) async {
        var failures = 0
        while !Task.isCancelled, isWanted(endpoint) {
            var connection: RedisConnection?
            do {
                let opened = try await client.dedicatedConnection(to: endpoint) { [weak self] message in
                    self?.deliver(message, from: endpoint)
                }
                connection = opened
                try await subscribe(opened)
                setLive(endpoint, opened, true)
                // A close is acted on at once, not at the next heartbeat: invalidations sent
                // meanwhile are lost.
                opened.channel.closeFuture.whenComplete { [weak self] _ in self?.setLive(endpoint, opened, false) }
                if failures > 0 { logger.info("key tracking resumed", metadata: ["node": "\(endpoint)"]) }
                failures = 0
                while !Task.isCancelled, isWanted(endpoint), opened.isActive {
                    try await Task.sleep(for: heartbeat)
                    _ = try await opened.send(["PING"], timeout: heartbeat)
                }
            } catch is CancellationError {
            } catch {
                if failures == 0 {
                    logger.warning("key tracking connection failed", metadata: ["node": "\(endpoint)", "error": "\(error)"])
                }
                failures += 1
            }
            if let connection {
                connection.close()
                setLive(endpoint, connection, false)
            }
            guard !Task.isCancelled, isWanted(endpoint) else { return }
            if failures > 0 { try? await Task.sleep(for: client.configuration.reconnectBackoff.delay(beforeRetry: failures)) }
        }
    }

    /// Turns tracking on for this connection, redirected to itself, and subscribes it.
    private func subscribe(_ connection: RedisConnection) async throws {
        let timeout = client.configuration.commandTimeout
        guard case .integer(let id) = try await connection.send(["CLIENT", "ID"], timeout: timeout) else {
            throw RedisConnectionError(.protocolError, "CLIENT ID did not answer an integer")
        }
        var tracking: [RESPArgument] = ["CLIENT", "TRACKING", "ON", "REDIRECT", .integer(id), "BCAST"]
        for prefix in prefixes { tracking += ["PREFIX", .string(prefix)] }
        let reply = try await connection.send(tracking, timeout: timeout)
        if case .error(let message) = reply { throw RedisServerError(message: message) }
        let subscribed = try await connection.send(["SUBSCRIBE", "__redis__:invalidate"], timeout: timeout)
        guard case .array(let elements?) = subscribed, elements.first?.string == "subscribe" else {
            throw RedisConnectionError(.protocolError, "SUBSCRIBE __redis__:invalidate answered \(subscribed)")
        }
    }

    /// Records that `connection` became, or stopped being, `endpoint`'s tracking connection.
    private func setLive(_ endpoint: RedisEndpoint, _ connection: RedisConnection, _ live: Bool) {
        let id = ObjectIdentifier(connection)
        let change = state.withLock { state -> (tracking: Bool, reason: FlushReason)? in
            if live {
                guard state.nodes.contains(endpoint) else { return nil }
                state.live[endpoint] = id
                state.updateTracking()
                return state.tracking ? (true, .tracking) : nil
            }
            guard state.live[endpoint] == id else { return nil }  // already replaced, or never live
            state.live[endpoint] = nil
            state.updateTracking()
            return (false, .connectionLost)
        }
        if let change { observer.invalidateAll(tracking: change.tracking, reason: change.reason) }
    }

    /// A message on `__redis__:invalidate`: an array of keys, or null when the node was flushed.
    private func deliver(_ message: RESPValue, from endpoint: RedisEndpoint) {
        guard case .array(let elements?) = message, elements.count == 3 else { return }
        switch elements[2] {
        case .array(let keys?):
            observer.invalidate(keys: keys.compactMap(\.string))
        case .bulkString(let key?):
            observer.invalidate(keys: [String(buffer: key)])
        case .array(nil), .bulkString(nil):
            observer.invalidateAll(tracking: isTracking, reason: .flushed)
        default:
            logger.warning("unexpected invalidation message", metadata: ["node": "\(endpoint)", "message": "\(message)"])
        }
    }
}
