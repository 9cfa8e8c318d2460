import BraidConfig
import BraidContracts
import BraidCore
import BraidPrecompute
import BraidRedis
import BraidTestSupport
import BraidWiring
import Foundation
import Testing

/// Key tracking in a whole gateway (``GatewayHarness``, over real Redis): what a page serves
/// after a worker's write, and what it asks Redis for meanwhile.
@Suite("Key tracking in the gateway", .serialized, .integration)
struct KeyTrackingPageTests {
    @Test func aMovedPointerReachesPage1AtOnceThoughAReadPointerWouldBeReusedForAMinute() async throws {
        let fixture = try await WorkerFixture(documents: 300, users: 5)
        var configuration = GatewayHarness.configuration(fixture)
        // Without tracking page 1 would serve the pointer it read for a minute.
        configuration.gateway.pointerCache = .seconds(60)
        let keys = configuration.redis.cacheKeys
        try await GatewayHarness.with(configuration) { client, gateway in
            let tracker = try #require(gateway.keyTracker)
            try await eventually("tracking") { tracker.isTracking }
            let store = PrecomputeStore(redis: gateway.redis, keys: keys)
            let first = Int64(Date().timeIntervalSince1970 * 1000)
            try await Self.publish(store, version: first)
            func snapshot(_ session: String) async throws -> Int? {
                let page = try await client.json("/v1/search?q=rice&per_page=6&session=\(session)")
                try #require(page.status == 200, "\(page.object)")
                return (page["interleaving"] as? [String: Any])?["snapshot"] as? Int
            }
            #expect(try await snapshot("k1") == Int(first))
            #expect(try await snapshot("k2") == Int(first))
            try await Self.publish(store, version: first + 1)
            try await eventually("page 1 on the new version", within: .seconds(10)) { try await snapshot("k3") == Int(first + 1) }
        }
    }

    @Test func aCachedComponentCostsNoRedisReadUntilANewVersionIsWrittenAndThenServesIt() async throws {
        let fixture = try await WorkerFixture(documents: 300, users: 5)
        try await RedisServerProcess.with { server in
            // A Redis of its own, whose command counts are this gateway's alone.
            let configuration = GatewayHarness.configuration(fixture, redisURL: server.url)
            let keys = configuration.redis.cacheKeys
            try await GatewayHarness.with(configuration) { client, gateway in
                let tracker = try #require(gateway.keyTracker)
                try await eventually("tracking") { tracker.isTracking }
                let store = PrecomputeStore(redis: gateway.redis, keys: keys)
                let scope = ComponentScope(user: "u00003")
                func publish(_ version: Int64, _ id: String) async throws {
                    let content = ComponentContent(
                        feed: "home", type: .recommendedRecipes, scope: scope, items: [.object(["id": .string(id)])], version: version,
                        createdAt: Date())
                    #expect(try await store.publish(content, ttlSeconds: 600) == .written)
                }
                func firstItem() async throws -> String? {
                    let page = try await client.json("/v1/feeds/home/components/recommended?user=u00003")
                    try #require(page.status == 200 && page["source"] as? String == "cached", "\(page.object)")
                    return (page["items"] as? [[String: Any]])?.first?["id"] as? String
                }
                try await publish(1, "old")
                #expect(try await firstItem() == "old")
                // The write's own invalidation may still be on its way (a read that races it is not
                // kept): wait until a page costs no read, then count over twenty.
                try await eventually("a cached page without a Redis read") {
                    let before = try await Self.readCalls(gateway.redis)
                    _ = try await firstItem()
                    return try await Self.readCalls(gateway.redis) == before
                }
                let readsBefore = try await Self.readCalls(gateway.redis)
                for _ in 0..<20 { #expect(try await firstItem() == "old") }
                #expect(try await Self.readCalls(gateway.redis) == readsBefore, "cached pages asked Redis for the component")
                try await publish(2, "new")
                try await eventually("the new version served", within: .seconds(10)) { try await firstItem() == "new" }
            }
        }
    }

    static func publish(_ store: PrecomputeStore, version: Int64) async throws {
        let snapshot = RankingSnapshot(
            ranking: "featured", query: QueryNormalizer.normalize("rice"), version: version, createdAt: Date().addingTimeInterval(-30),
            requestID: "rice-\(version)",
            documents: (1...20).map { RankingSnapshot.Document(id: "rice-b\(version)-\($0)", score: Double(100 - $0), fields: [:]) })
        #expect(try await store.publish(snapshot, ttlSeconds: 86_400, graceSeconds: 60) == .written)
    }

    /// How many reads of hashes and strings the server has answered (`INFO commandstats`).
    static func readCalls(_ redis: RedisClient) async throws -> Int {
        let info = try #require(try await redis.send(["INFO", "commandstats"]).string)
        return info.split(whereSeparator: \.isNewline).reduce(0) { total, line in
            guard ["cmdstat_hget:", "cmdstat_hgetall:", "cmdstat_get:", "cmdstat_evalsha:"].contains(where: { line.hasPrefix($0) }),
                let calls = line.split(separator: ",").first?.split(separator: "=").last.flatMap({ Int($0) })
            else { return total }
            return total + calls
        }
    }
}
