import BraidConfig
import BraidContracts
import BraidCore
import BraidGateway
import BraidHarness
import BraidPrecompute
import BraidRedis
import BraidWiring
import Foundation
import Synchronization

/// How stale a gateway's pointer can be with key tracking: from the moment a worker's write
/// of a new snapshot is acknowledged (``PrecomputeStore/publish(_:ttlSeconds:graceSeconds:)``
/// returns) to the moment the gateway's ``TrackedVersions`` drops the old pointer. The
/// gateway's own parts, in this process: the client and ``RedisKeyTracker`` a gateway builds
/// from the run's configuration, on the run's Redis; the writer is a second client, as a
/// worker is. One change at a time, each to one of 50 rankings' pointers, which the gateway
/// side holds before the write. An eviction that arrives before the writer's acknowledgement
/// counts as 0 ms (and is counted).
struct TrackingStaleness {
    let context: BenchmarkContext

    func run(changes: Int) async throws {
        let configuration = try clientConfiguration()
        let keys = CacheKeys(prefix: "bench-staleness-\(context.tag)")
        let gatewayClient = RedisClient(configuration: configuration)
        let writerClient = RedisClient(configuration: configuration)
        let versions = TrackedVersions()
        let observer = EvictionClock(forwardingTo: versions)
        let tracker = RedisKeyTracker(client: gatewayClient, prefixes: keys.trackedPrefixes, observer: observer)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await gatewayClient.run() }
            group.addTask { try await writerClient.run() }
            group.addTask { try await tracker.run() }
            defer { group.cancelAll() }
            try await gatewayClient.waitUntilConnected()
            try await writerClient.waitUntilConnected()
            let deadline = ContinuousClock.now + .seconds(30)
            while !tracker.isTracking {
                guard ContinuousClock.now < deadline else { throw BenchmarkError("key tracking did not start within 30 s") }
                try await Task.sleep(for: .milliseconds(10))
            }
            let store = PrecomputeStore(redis: writerClient, keys: keys)
            var staleness: [Double] = []
            var early = 0
            for change in 1...changes {
                let query = "q\(change % 50)"
                let pointer = keys.ranking("bench", query: query).pointer
                versions.remember(Int64(change - 1), for: pointer, ticket: versions.ticket(for: pointer))
                observer.watch(pointer)
                let snapshot = RankingSnapshot(
                    ranking: "bench", query: query, version: Int64(change), createdAt: Date(), requestID: "staleness-\(change)",
                    documents: [RankingSnapshot.Document(id: "d\(change)", score: 1, fields: [:])])
                _ = try await store.publish(snapshot, ttlSeconds: 600, graceSeconds: 60)
                let acknowledged = ContinuousClock.now
                let evicted = try await observer.eviction(within: .seconds(5))
                guard versions.version(for: pointer) == nil else { throw BenchmarkError("the old pointer of \(query) was not dropped") }
                if evicted < acknowledged { early += 1 }
                staleness.append(max(0, Self.milliseconds(evicted - acknowledged)))
            }
            staleness.sort()
            Report.figure("gateway.pointer_staleness.changes", changes)
            Report.figure("gateway.pointer_staleness.evicted_before_ack", early)
            Report.figure("gateway.pointer_staleness.p50_ms", Format.fixed(Self.percentile(staleness, 0.50), 3))
            Report.figure("gateway.pointer_staleness.p99_ms", Format.fixed(Self.percentile(staleness, 0.99), 3))
            Report.figure("gateway.pointer_staleness.max_ms", Format.fixed(staleness.last ?? 0, 3))
        }
    }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15
    }

    /// Nearest-rank percentile of sorted values.
    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((p * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    private func clientConfiguration() throws -> RedisConfiguration {
        var configuration = try ConfigurationLoader.load(file: nil)
        configuration.redis.url = context.redis.url
        configuration.redis.commandTimeout = .seconds(5)
        try configuration.validate()
        return try configuration.redis.clientConfiguration()
    }
}

/// Passes everything to the gateway's ``TrackedVersions`` and notes when the watched key's
/// invalidation went through.
private final class EvictionClock: RedisInvalidationObserver {
    private let versions: TrackedVersions
    private let state = Mutex<(watched: String?, evictedAt: ContinuousClock.Instant?)>((nil, nil))

    init(forwardingTo versions: TrackedVersions) {
        self.versions = versions
    }

    func watch(_ key: String) {
        state.withLock { $0 = (key, nil) }
    }

    func invalidate(keys: [String]) {
        versions.invalidate(keys: keys)
        let now = ContinuousClock.now
        state.withLock { state in
            if state.evictedAt == nil, let watched = state.watched, keys.contains(watched) { state.evictedAt = now }
        }
    }

    func invalidateAll(tracking: Bool, reason: RedisKeyTracker.FlushReason) {
        versions.invalidateAll(tracking: tracking, reason: reason)
    }

    /// When the watched key was dropped. Polls: the time is taken in the callback, so the
    /// poll's interval does not enter the figure.
    func eviction(within timeout: Duration) async throws -> ContinuousClock.Instant {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let at = state.withLock({ $0.evictedAt }) { return at }
            guard ContinuousClock.now < deadline else { throw BenchmarkError("no invalidation within \(timeout)") }
            try await Task.sleep(for: .microseconds(100))
        }
    }
}
