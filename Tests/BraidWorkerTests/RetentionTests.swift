import BraidContracts
import BraidCore
import BraidExperiments
import BraidPrecompute
import BraidRedis
import BraidTestSupport
import BraidWorker
import Foundation
import Testing

/// Walk records and impression states have no Redis TTL, so a `volatile-*` eviction policy never
/// takes them; the retention sweep deletes them once their stored expiry has passed.
@Suite("retention of walk records and impression states against a real Redis", .integration)
struct RetentionTests {
    static let page = WalkRecord.Page(ids: ["r1", "r2", "r3"], aTotal: 40)

    static func click(_ nonce: Int, experiment: String, issuedAt: Date) -> ExperimentEvent {
        let token = ImpressionToken(
            experiment: experiment, offset: 0, teams: [.a, .b], creditWindow: 0..<2, nonce: UInt64(nonce),
            issuedAt: Int64(issuedAt.timeIntervalSince1970))
        return ExperimentEvent.make(.click, token: token, position: 1)!
    }

    @Test("The sweep deletes walk records and impression states past their expiry and a grace, and nothing else")
    func theSweepDeletesOnlyExpiredRecords() async throws {
        try await withRedisClient(try TestEnvironment.redisURL()) { (redis: RedisClient) async throws -> Void in
            let keys = CacheKeys(prefix: TestEnvironment.uniqueName("braid"))
            let walks = WalkStore(redis: redis, keys: keys, maxBytes: 4_096)
            let experiments = ExperimentStore(redis: redis, keys: keys)
            let sweep = RetentionSweep(redis: redis, keys: keys, grace: 300)
            let now = Date()
            let seconds = Int64(now.timeIntervalSince1970)
            #expect(try await walks.append(1, pages: [Self.page], from: 1, expiresAt: seconds - 400) == .appended)
            #expect(try await walks.append(2, pages: [Self.page], from: 1, expiresAt: seconds + 600) == .appended)
            // Expired by the sweeper's clock, but within the grace: a gateway's clock may be behind.
            #expect(try await walks.append(3, pages: [Self.page], from: 1, expiresAt: seconds - 100) == .appended)
            let ttl = TimeInterval(ImpressionValidity.impressionStateTTLSeconds)
            let old = Self.click(1, experiment: "kept", issuedAt: now.addingTimeInterval(-ttl - 400))
            #expect(try await experiments.apply(old, now: now.addingTimeInterval(-ttl - 400)) == .credited)
            let fresh = Self.click(2, experiment: "kept", issuedAt: now)
            #expect(try await experiments.apply(fresh, now: now) == .credited)
            let experiment = keys.experiment("kept")
            for key in [experiment.impression(fresh.impression), experiment.clickedPositions(fresh.impression), keys.walk(2)] {
                #expect(try await redis.ttl(key) == .persistent, "\(key) has a TTL: eviction could take it")
            }
            // A clicked set whose state an older Braid's TTL took.
            _ = try await redis.send(["SADD", .string(experiment.clickedPositions("orphan")), "1"], keys: [experiment.clickedPositions("orphan")])
            let snapshot = keys.ranking("popular", query: "soup").version(1)
            try await redis.set(snapshot, to: .string("{}"), expiration: .seconds(600))

            let outcome = try await sweep.sweep(now: now)

            #expect(outcome.deleted == 3, "\(outcome)")
            #expect(outcome.examined >= 6, "\(outcome)")
            #expect(try await walks.read(1) == nil)
            #expect(try await walks.read(2)?.pages == [Self.page])
            #expect(try await walks.read(3)?.pages == [Self.page])
            for gone in [experiment.impression(old.impression), experiment.clickedPositions(old.impression), experiment.clickedPositions("orphan")] {
                #expect(try await redis.ttl(gone) == .missing, "\(gone) is still there")
            }
            for kept in [experiment.impression(fresh.impression), experiment.clickedPositions(fresh.impression), experiment.counters, snapshot] {
                #expect(try await redis.ttl(kept) != .missing, "\(kept) was deleted")
            }
            // The live impression still knows its click: a replay counts as a duplicate, not again.
            #expect(try await experiments.apply(fresh, now: now) == .duplicate)
            #expect(try await sweep.sweep(now: now).deleted == 0, "a second sweep finds nothing more")
        }
    }

    @Test("The sweep reaches every primary of a Redis Cluster")
    func theSweepCoversACluster() async throws {
        try await withRedisClusterClient(try TestEnvironment.redisClusterURLs()) { (redis: RedisClient) async throws -> Void in
            let keys = CacheKeys(prefix: TestEnvironment.uniqueName("braid"))
            let walks = WalkStore(redis: redis, keys: keys, maxBytes: 4_096)
            let expired = Int64(Date().timeIntervalSince1970) - 1_000
            let ids = (1...40).map { UInt64($0) * 7_919 }
            for id in ids { #expect(try await walks.append(id, pages: [Self.page], from: 1, expiresAt: expired) == .appended) }
            #expect(Set(ids.map { RedisHashSlot.slot(of: keys.walk($0)) / 5_462 }).count == 3, "the walks span the three primaries")
            let outcome = try await RetentionSweep(redis: redis, keys: keys).sweep()
            #expect(outcome.deleted == ids.count, "\(outcome)")
            for id in ids { #expect(try await walks.read(id) == nil) }
        }
    }

    @Test("One worker of the fleet sweeps per interval: the others find the lease taken")
    func oneSweeperPerInterval() async throws {
        try await withRedisClient(try TestEnvironment.redisURL()) { (redis: RedisClient) async throws -> Void in
            let keys = CacheKeys(prefix: TestEnvironment.uniqueName("braid"))
            let workers = (0..<3).map { _ in RetentionSweeper(sweep: RetentionSweep(redis: redis, keys: keys), interval: .seconds(60)) }
            var swept = 0
            for worker in workers where await worker.sweepIfOurs() != nil { swept += 1 }
            #expect(swept == 1)
            _ = try await redis.del([keys.retentionLease])
            #expect(await workers[2].sweepIfOurs() != nil, "the next interval's lease is free again")
        }
    }

    /// Fills a Redis of 24 MB under `policy` with snapshots (TTL'd, as the workers write them, and
    /// read) after 400 walks and 400 clicked impressions, until it has evicted 2,000 keys. Returns
    /// the walks and impression states still there, the credit counted and the keys evicted.
    static func fill(policy: String) async throws -> (walks: Int, impressions: Int, credited: Int, evicted: Int) {
        try await RedisServerProcess.with(extraArguments: ["--maxmemory", "24mb", "--maxmemory-policy", policy]) { server in
            try await withRedisClient(server.url) { (redis: RedisClient) async throws -> (Int, Int, Int, Int) in
                let keys = CacheKeys(prefix: "braid")
                let walks = WalkStore(redis: redis, keys: keys, maxBytes: 4_096)
                let experiments = ExperimentStore(redis: redis, keys: keys)
                let now = Date()
                let expiry = Int64(now.timeIntervalSince1970) + 3_600
                let clicks = (0..<400).map { Self.click($0, experiment: "fill", issuedAt: now) }
                for id in 0..<400 { _ = try await walks.append(UInt64(id + 1), pages: [Self.page, Self.page], from: 1, expiresAt: expiry) }
                for click in clicks { _ = try await experiments.apply(click, now: now) }
                let value = RESPArgument.string(String(repeating: "x", count: 4_096))
                var written = 0
                func evicted() async throws -> Int {
                    let info = try await redis.send(["INFO", "stats"]).string ?? ""
                    let line = info.split(whereSeparator: \.isNewline).first { $0.hasPrefix("evicted_keys:") }
                    return line.flatMap { Int($0.dropFirst("evicted_keys:".count)) } ?? 0
                }
                while try await evicted() < 2_000, written < 40_000 {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for index in written..<(written + 500) {
                            group.addTask {
                                let snapshot = keys.ranking("fill", query: "q\(index)").version(1)
                                try await redis.set(snapshot, to: value, expiration: .seconds(86_400))
                                // Read as pages read a snapshot: more often than any one walk record,
                                // so an LFU policy would rather take walks, were they candidates.
                                for _ in 0..<8 { _ = try await redis.get(snapshot) }
                            }
                        }
                        try await group.waitForAll()
                    }
                    written += 500
                }
                var walksLeft = 0
                for id in 0..<400 where try await walks.read(UInt64(id + 1))?.pages.count == 2 { walksLeft += 1 }
                var statesLeft = 0
                let experiment = keys.experiment("fill")
                for click in clicks where try await redis.ttl(experiment.impression(click.impression)) != .missing { statesLeft += 1 }
                let credited = try await experiments.outcome(of: "fill").winsB
                return (walksLeft, statesLeft, credited, try await evicted())
            }
        }
    }

    @Test("Filling Redis under volatile-lfu evicts snapshots and no walk record, impression state or experiment credit")
    func volatileEvictionTakesOnlyWhatCanBeRecomputed() async throws {
        let filled = try await Self.fill(policy: "volatile-lfu")
        #expect(filled.evicted >= 2_000, "\(filled)")
        #expect(filled.walks == 400, "\(filled)")
        #expect(filled.impressions == 400, "\(filled)")
        #expect(filled.credited == 400, "\(filled)")
    }

    /// The same fill under a policy Braid warns against loses walks: the check above is not vacuous.
    @Test("Filling Redis under allkeys-lru loses walk records, which is why Braid asks for volatile-lfu")
    func allKeysEvictionLosesWalks() async throws {
        let filled = try await Self.fill(policy: "allkeys-lru")
        #expect(filled.evicted >= 2_000, "\(filled)")
        #expect(filled.walks < 400 || filled.impressions < 400, "\(filled)")
    }
}
