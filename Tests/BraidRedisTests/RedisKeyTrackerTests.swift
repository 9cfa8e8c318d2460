import BraidRedis
import BraidTestSupport
import Synchronization
import Testing

/// The tracker against a real redis-server of its own (the tests flush it, kill its
/// clients and restart it): what reaches the observer, and when.
@Suite("Redis key tracking", .integration)
struct RedisKeyTrackerTests {
    @Test func aWriteUnderATrackedPrefixByAnotherClientArrivesAsAnInvalidationAndOtherKeysDoNot() async throws {
        try await withTracker { redis, tracker, observer, _ in
            try await redis.set("other:1", to: "x")
            try await redis.set("t:{rank:a}:cur", to: "7")
            try await eventually("the pointer's invalidation") { observer.invalidatedKeys.contains("t:{rank:a}:cur") }
            _ = try await redis.send(["DEL", "t:{rank:a}:cur"])
            try await eventually("the deletion's invalidation") { observer.invalidatedKeys.filter { $0 == "t:{rank:a}:cur" }.count == 2 }
            #expect(!observer.invalidatedKeys.contains("other:1"))
            #expect(tracker.isTracking)
        }
    }

    @Test func aFlushallDropsEverythingWhileTrackingStaysOn() async throws {
        try await withTracker { redis, tracker, observer, _ in
            _ = try await redis.send(["FLUSHALL"])
            try await eventually("a flush for FLUSHALL") { observer.flushes.contains { $0.reason == .flushed } }
            #expect(observer.flushes.last { $0.reason == .flushed }?.tracking == true)
            #expect(tracker.isTracking)
        }
    }

    @Test func aKilledTrackingConnectionDropsEverythingUntilANewOneIsSubscribedAndReportsAgain() async throws {
        try await withTracker { redis, tracker, observer, _ in
            let before = observer.flushes.count
            _ = try await redis.send(["CLIENT", "KILL", "TYPE", "pubsub"])
            try await eventually("a flush for the lost connection") {
                observer.flushes.dropFirst(before).contains { $0 == .init(tracking: false, reason: .connectionLost) }
            }
            try await eventually("tracking again") { tracker.isTracking }
            #expect(observer.flushes.last == .init(tracking: true, reason: .tracking))
            // The new connection has a new client id: a write is reported only if it registered again.
            try await redis.set("t:{comp:f}:content", to: "1")
            try await eventually("an invalidation on the new connection") { observer.invalidatedKeys.contains("t:{comp:f}:content") }
        }
    }

    @Test func aRestartedRedisIsTrackedAgainAfterADropWhileItWasDown() async throws {
        try await withTracker { redis, tracker, observer, server in
            await server.stop()
            try await eventually("a drop while Redis is down") { !tracker.isTracking }
            #expect(observer.flushes.contains(.init(tracking: false, reason: .connectionLost)))
            try await server.start()
            try await eventually("tracking after the restart") { tracker.isTracking }
            try await eventually("the client reconnected") { (try? await redis.set("t:{rank:b}:cur", to: "1")) != nil }
            try await eventually("an invalidation after the restart") { observer.invalidatedKeys.contains("t:{rank:b}:cur") }
        }
    }

    @Test func onAClusterEveryPrimaryReportsTheWritesToItsSlots() async throws {
        try await withRedisClusterClient { redis in
            let prefix = TestEnvironment.uniqueName("trk") + ":"
            let observer = RecordingObserver()
            let tracker = RedisKeyTracker(client: redis, prefixes: [prefix], observer: observer, heartbeat: .milliseconds(100))
            try await running(tracker) {
                try await eventually("tracking on every primary") { tracker.isTracking }
                let primaries = redis.primaries()
                #expect(primaries.count == 3)
                var keys: [String] = []
                for primary in primaries {
                    var index = 0
                    while redis.node(forKey: "\(prefix){\(index)}:cur") != primary { index += 1 }
                    keys.append("\(prefix){\(index)}:cur")
                }
                for key in keys { try await redis.set(key, to: "1") }
                try await eventually("an invalidation from every primary") { Set(keys).isSubset(of: Set(observer.invalidatedKeys)) }
            }
        }
    }

    /// A private server (stopped afterwards), a client and a tracker of prefix `t:`, tracking
    /// when `body` starts.
    private func withTracker(
        _ body: @escaping @Sendable (RedisClient, RedisKeyTracker, RecordingObserver, RedisServerProcess) async throws -> Void
    ) async throws {
        try await RedisServerProcess.with { server in
            try await withRedisClient(server.url, commandTimeout: .seconds(10)) { redis in
                let observer = RecordingObserver()
                let tracker = RedisKeyTracker(client: redis, prefixes: ["t:"], observer: observer, heartbeat: .milliseconds(100))
                try await running(tracker) {
                    try await eventually("tracking") { tracker.isTracking }
                    #expect(observer.flushes.last == .init(tracking: true, reason: .tracking))
                    try await body(redis, tracker, observer, server)
                }
            }
        }
    }

    private func running(_ tracker: RedisKeyTracker, _ body: @Sendable () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await tracker.run() }
            defer { group.cancelAll() }
            try await body()
        }
    }
}

/// What a tracker told its observer, in order.
final class RecordingObserver: RedisInvalidationObserver {
    struct Flush: Equatable, Sendable {
        var tracking: Bool
        var reason: RedisKeyTracker.FlushReason
    }

    private let state = Mutex<(keys: [String], flushes: [Flush])>(([], []))

    var invalidatedKeys: [String] { state.withLock { $0.keys } }
    var flushes: [Flush] { state.withLock { $0.flushes } }

    func invalidate(keys: [String]) {
        state.withLock { $0.keys += keys }
    }

    func invalidateAll(tracking: Bool, reason: RedisKeyTracker.FlushReason) {
        state.withLock { $0.flushes.append(Flush(tracking: tracking, reason: reason)) }
    }
}
