import Logging
import NIOCore
import Synchronization

/// The connections to one Redis node: a fixed number of slots, each kept connected by its
/// own loop with jittered exponential backoff, used round robin.
///
/// Commands never wait for a connection: with none up, ``liveConnection()`` is nil and the
/// caller fails at once (a page is then served degraded instead of hanging).
///
/// A command that went unanswered for its timeout makes the whole node suspect: the other
/// connections look up, but when packets to a node vanish (no RST) each would cost the next
/// commands a full timeout too. Until a new connection to the node has been set up (PING
/// answered), commands fail at once; against a healthy node that is a round trip later.
final class RedisNodePool: Sendable {
    let endpoint: RedisEndpoint
    private let connector: RedisNodeConnector
    private let logger: Logger
    /// Called when an established connection closes (not on failed attempts): in a
    /// cluster, a lost node is a reason to re-read the slot map.
    private let onConnectionLost: @Sendable (RedisEndpoint) -> Void
    private let slots: Mutex<[RedisConnection?]>
    private let nextSlot = Atomic<Int>(0)
    private let state = Mutex(State())

    private struct State {
        var lastError: RedisConnectionError?
        var hasConnected = false
        var stopped = false
        /// A command timed out and no connection has been set up since.
        var suspect = false
    }

    init(
        endpoint: RedisEndpoint, connector: RedisNodeConnector, logger: Logger,
        onConnectionLost: @escaping @Sendable (RedisEndpoint) -> Void = { _ in }
    ) {
        self.endpoint = endpoint
        self.connector = connector
        self.logger = logger
        self.onConnectionLost = onConnectionLost
        self.slots = Mutex(Array(repeating: nil, count: connector.configuration.poolSize))
    }

    /// The most recent failure to connect, cleared by a successful connection.
    var lastError: RedisConnectionError? { state.withLock { $0.lastError } }

    /// Whether a connection has ever been up: a pool that never connected is still
    /// starting, one that has is down.
    var hasConnected: Bool { state.withLock { $0.hasConnected } }

    /// Keeps every slot connected until cancelled or ``stop()``ped, then closes the connections.
    func run() async {
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<connector.configuration.poolSize {
                group.addTask { await self.maintain(slot: index) }
            }
        }
        closeAll()
    }

    /// Stops reconnecting and takes the connections out of use; they close once commands
    /// already on them have had their command timeout to answer.
    func stop() {
        state.withLock { $0.stopped = true }
        let open = slots.withLock { slots in
            defer { slots = slots.map { _ in nil } }
            return slots.compactMap { $0 }
        }
        let grace = connector.configuration.commandTimeout
        for connection in open {
            connection.channel.eventLoop.scheduleTask(in: .nanoseconds(grace.nanoseconds)) { connection.close() }
        }
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    /// Round robin over the slots whose connection is up; none while the node is suspect.
    func liveConnection() -> RedisConnection? {
        guard !state.withLock({ $0.suspect }) else { return nil }
        let start = nextSlot.add(1, ordering: .relaxed).oldValue
        return slots.withLock { slots in
            for step in 0..<slots.count {
                if let connection = slots[((start &+ step) & Int.max) % slots.count], connection.isActive { return connection }
            }
            return nil
        }
    }

    /// A live connection, waiting up to `timeout` for one only while the pool has never
    /// connected (a pool just created for a new primary); a pool that lost its node fails fast.
    func connection(waitingIfNewFor timeout: Duration) async -> RedisConnection? {
        if let connection = liveConnection() { return connection }
        let deadline = ContinuousClock.now + timeout
        while !hasConnected, lastError?.kind != .tls, ContinuousClock.now < deadline, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(5))
            if let connection = liveConnection() { return connection }
        }
        return nil
    }

    /// The error for a command that found no connection.
    func unavailableError() -> RedisConnectionError {
        let cause = lastError.map { ": \($0.message)" } ?? (hasConnected ? ": the connection was lost, reconnecting" : ": still connecting")
        return RedisConnectionError(.unavailable, "no connection to Redis at \(endpoint)\(cause)")
    }

    private func maintain(slot index: Int) async {
        var failures = 0
        while !Task.isCancelled, !isStopped {
            do {
                let connection = try await connector.connect(to: endpoint)
                guard !isStopped else {
                    connection.close()
                    return
                }
                slots.withLock { $0[index] = connection }
                state.withLock {
                    $0.hasConnected = true
                    $0.lastError = nil
                    $0.suspect = false
                }
                if failures > 0 { logger.info("reconnected to Redis", metadata: ["node": "\(endpoint)", "slot": "\(index)"]) }
                failures = 0
                await withTaskCancellationHandler {
                    await connection.closed()
                } onCancel: {
                    connection.close()
                }
                slots.withLock { if $0[index] === connection { $0[index] = nil } }
                if connection.closedByTimeout {
                    state.withLock {
                        $0.suspect = true
                        $0.lastError = RedisConnectionError(
                            .timeout, "a command to \(endpoint) went unanswered; waiting for a new connection to answer")
                    }
                }
                if !Task.isCancelled, !isStopped { onConnectionLost(endpoint) }
            } catch {
                let failure = error as? RedisConnectionError ?? RedisConnectionError(.connectFailed, "\(error)")
                state.withLock { $0.lastError = failure }
                if failures == 0 {
                    logger.warning("Redis connection failed", metadata: ["node": "\(endpoint)", "slot": "\(index)", "error": "\(failure)"])
                }
                failures += 1
            }
            guard !Task.isCancelled, !isStopped else { return }
            // A dropped connection reconnects at once; failed attempts back off (a full
            // restart of Redis is noticed within the backoff's maximum).
            if failures > 0 { try? await Task.sleep(for: connector.configuration.reconnectBackoff.delay(beforeRetry: failures)) }
        }
    }

    private func closeAll() {
        let open = slots.withLock { slots in
            defer { slots = slots.map { _ in nil } }
            return slots.compactMap { $0 }
        }
        for connection in open { connection.close() }
    }
}
