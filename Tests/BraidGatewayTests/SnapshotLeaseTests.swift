import BraidContracts
import BraidDevSupport
@testable import BraidGateway
import BraidRedis
import BraidTestSupport
import Foundation
import Synchronization
import Testing

/// ``SnapshotLease`` over a real Redis: concurrent misses on several gateways cause one
/// computation, and a holder that died blocks nobody past its lease.
@Suite("Snapshot leases", .serialized, .integration)
struct SnapshotLeaseTests {
    /// Computations counted from concurrent tasks.
    final class Tally: Sendable {
        let count = Atomic(0)
    }

    static func keys() -> CacheKeys { CacheKeys(prefix: "lease-\(UUID().uuidString.prefix(8))") }

    @Test("Eight concurrent misses on each of three gateways cause one computation; the other 23 pages get its snapshot")
    func oneComputationAcrossTheFleet() async throws {
        try await withRedisClient(try TestEnvironment.redisURL()) { (redis: RedisClient) async throws -> Void in
            let keys = Self.keys()
            let gateways = (0..<3).map { _ in SnapshotLease(redis: redis, keys: keys, ttl: .seconds(30), wait: .seconds(5)) }
            let computations = Tally()
            let outcomes = try await withThrowingTaskGroup(of: SnapshotLease.Outcome.self) { group in
                for gateway in gateways {
                    for _ in 0..<8 {
                        group.addTask {
                            try await gateway.run(ranking: "popular", query: "curry") {
                                computations.count.add(1, ordering: .relaxed)
                                try await Task.sleep(for: .milliseconds(300))
                                _ = try await redis.set(keys.ranking("popular", query: "curry").pointer, to: "1")
                            }
                        }
                    }
                }
                return try await group.reduce(into: [SnapshotLease.Outcome]()) { $0.append($1) }
            }
            #expect(computations.count.load(ordering: .relaxed) == 1)
            #expect(outcomes.filter { $0 == .computed }.count == 1)
            #expect(outcomes.filter { $0 == .waited }.count == 23)
            // The lease is released once the snapshot is written.
            #expect(try await redis.get(keys.ranking("popular", query: "curry").lease) == nil)
        }
    }

    @Test("A holder that died blocks nobody past its lease: a page waiting longer takes the lease and computes; one waiting less is live-only")
    func aDeadHolderExpires() async throws {
        try await withRedisClient(try TestEnvironment.redisURL()) { (redis: RedisClient) async throws -> Void in
            let keys = Self.keys()
            let lease = keys.ranking("popular", query: "rice").lease
            // A gateway took the lease (800 ms) and died without writing anything.
            #expect(try await redis.set(lease, to: "dead", expiration: .milliseconds(800), condition: .ifNotExists))
            let impatient = SnapshotLease(redis: redis, keys: keys, ttl: .seconds(30), wait: .milliseconds(200))
            #expect(try await impatient.run(ranking: "popular", query: "rice") { Issue.record("computed while the lease was held") } == .liveOnly)
            let patient = SnapshotLease(redis: redis, keys: keys, ttl: .seconds(30), wait: .seconds(10))
            let computed = Tally()
            let clock = ContinuousClock()
            let start = clock.now
            #expect(try await patient.run(ranking: "popular", query: "rice") { computed.count.add(1, ordering: .relaxed) } == .computed)
            #expect(computed.count.load(ordering: .relaxed) == 1)
            #expect(clock.now - start < .seconds(5), "waited \(clock.now - start) for an 800 ms lease")
        }
    }

    @Test("A page that missed before another gateway stored the snapshot finds the lease free and computes nothing; a pointer whose version was evicted is computed again")
    func aFreeLeaseOverAStoredSnapshotComputesNothing() async throws {
        try await withRedisClient(try TestEnvironment.redisURL()) { (redis: RedisClient) async throws -> Void in
            let keys = Self.keys()
            let ranking = keys.ranking("popular", query: "soup")
            let lease = SnapshotLease(redis: redis, keys: keys, ttl: .seconds(30), wait: .seconds(1))
            // Another gateway's computation finished and released its lease after this page's miss.
            _ = try await redis.set(ranking.version(7), to: "{}")
            _ = try await redis.set(ranking.pointer, to: "7")
            #expect(try await lease.run(ranking: "popular", query: "soup") { Issue.record("computed a stored snapshot again") } == .waited)
            #expect(try await redis.get(ranking.lease) == nil, "the lease taken to check is given back")
            // Eviction took the version the pointer names: that is a miss to compute.
            _ = try await redis.del([ranking.version(7)])
            let computed = Tally()
            #expect(try await lease.run(ranking: "popular", query: "soup") { computed.count.add(1, ordering: .relaxed) } == .computed)
            #expect(computed.count.load(ordering: .relaxed) == 1)
        }
    }
}
