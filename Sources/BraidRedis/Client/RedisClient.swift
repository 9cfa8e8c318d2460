import BraidCore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// An async Redis client: a pool of pipelined connections that reconnect by themselves.
///
/// Run it as a ServiceLifecycle `Service` (or call ``run()`` in a task): while it runs,
/// every pool slot keeps one connection up, reconnecting with jittered exponential backoff.
/// Commands never wait for a connection: with none up they fail at once with
/// ``RedisConnectionError/Kind/unavailable`` — a page can then be served degraded instead
/// of hanging.
public final class RedisClient: Service, Sendable {
    public let configuration: RedisConfiguration
    private let group: any EventLoopGroup
    private let logger: Logger
    /// One connection (or none, while reconnecting) per pool slot.
    private let slots: Mutex<[RedisConnection?]>
    private let nextSlot = Atomic<Int>(0)

    public init(
        configuration: RedisConfiguration,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "braid.redis")
    ) {
        self.configuration = configuration
        self.group = eventLoopGroup
        self.logger = logger
        self.slots = Mutex(Array(repeating: nil, count: configuration.poolSize))
    }

    /// Keeps the pool connected until cancelled or gracefully shut down, then closes it.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<self.configuration.poolSize {
                    group.addTask { await self.maintain(slot: index) }
                }
            }
        }
        let open = slots.withLock { slots in
            defer { slots = slots.map { _ in nil } }
            return slots.compactMap { $0 }
        }
        for connection in open { connection.close() }
    }

    /// Waits until at least one connection is up (start-up readiness), or throws
    /// ``RedisConnectionError`` after `timeout`.
    public func waitUntilConnected(timeout: Duration = .seconds(10)) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            if liveConnection() != nil { return }
            try? await Task.sleep(for: .milliseconds(10))
        }
        throw RedisConnectionError(.unavailable, "no connection to \(configuration.host):\(configuration.port) within \(timeout)")
    }

    /// Sends a command and returns its reply; an error reply is thrown as ``RedisServerError``.
    public func send(_ arguments: [RESPArgument], timeout: Duration? = nil) async throws -> RESPValue {
        guard let connection = liveConnection() else {
            throw RedisConnectionError(.unavailable, "no connection to Redis at \(configuration.host):\(configuration.port)")
        }
        let reply = try await connection.send(arguments, timeout: timeout ?? configuration.commandTimeout)
        if case .error(let message) = reply { throw RedisServerError(message: message) }
        return reply
    }

    /// Round robin over the slots whose connection is up.
    private func liveConnection() -> RedisConnection? {
        let start = nextSlot.add(1, ordering: .relaxed).oldValue
        return slots.withLock { slots in
            for step in 0..<slots.count {
                if let connection = slots[((start &+ step) & Int.max) % slots.count], connection.isActive { return connection }
            }
            return nil
        }
    }

    private func maintain(slot index: Int) async {
        var failures = 0
        while !Task.isCancelled {
            do {
                let connection = try await RedisConnection.connect(to: configuration, group: group)
                slots.withLock { $0[index] = connection }
                if failures > 0 { logger.info("reconnected to Redis", metadata: ["slot": "\(index)"]) }
                failures = 0
                await withTaskCancellationHandler {
                    await connection.closed()
                } onCancel: {
                    connection.close()
                }
                slots.withLock { $0[index] = nil }
            } catch {
                if failures == 0 { logger.warning("Redis connection failed", metadata: ["slot": "\(index)", "error": "\(error)"]) }
                failures += 1
            }
            guard !Task.isCancelled else { return }
            // A dropped connection reconnects at once; failed attempts back off (a full
            // restart of Redis is noticed within the backoff's maximum).
            if failures > 0 { try? await Task.sleep(for: configuration.reconnectBackoff.delay(beforeRetry: failures)) }
        }
    }
}
