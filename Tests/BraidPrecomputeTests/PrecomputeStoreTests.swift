import BraidContracts
import BraidCore
import BraidRedis
import BraidTestSupport
import BraidPrecompute
import Foundation
import NIOCore
import Testing

@Suite("precompute store against a real Redis", .integration)
struct PrecomputeStoreTests {
    static func snapshot(_ ranking: String, _ query: String, version: Int64, ids: [String]) -> RankingSnapshot {
        RankingSnapshot(
            ranking: ranking, query: QueryNormalizer.normalize(query), version: version,
            createdAt: Date(timeIntervalSince1970: Double(version) / 1000), requestID: "req-\(version)",
            documents: ids.enumerated().map { RankingSnapshot.Document(id: $1, score: Double(100 - $0), fields: ["title": .string($1)]) })
    }

    @Test func aRefreshFlipsThePointerAndKeepsTheOldVersionForItsGracePeriod() async throws {
        try await withRedisClient(try TestEnvironment.redisURL()) { (redis: RedisClient) async throws -> Void in
            let store = PrecomputeStore(redis: redis, keys: CacheKeys(prefix: TestEnvironment.uniqueName("braid")))
            let first = Self.snapshot("featured", "Curry Rice", version: 1_000, ids: ["r1", "r2"])
            let second = Self.snapshot("featured", "curry  rice", version: 2_000, ids: ["r3"])

            #expect(try await store.currentVersion(ranking: "featured", query: "curry rice") == nil)
            // A grace period long enough that a loaded machine still reads the old version in time.
            let grace = 4
            #expect(try await store.publish(first, ttlSeconds: 600, graceSeconds: grace) == .written)
            #expect(try await store.currentSnapshot(ranking: "featured", query: "ＣＵＲＲＹ　ＲＩＣＥ") == first)

            #expect(try await store.publish(second, ttlSeconds: 600, graceSeconds: grace) == .written)
            #expect(try await store.currentVersion(ranking: "featured", query: "curry rice") == 2_000)
            // A session pinned to the first version still reads it during the grace period…
            #expect(try await store.snapshot(ranking: "featured", query: "curry rice", version: 1_000) == first)
            let oldKey = store.keys.ranking("featured", query: "curry rice").version(1_000)
            guard case .seconds(let ttl) = try await redis.ttl(oldKey) else { Issue.record("the old version has no TTL"); return }
            #expect(ttl <= grace)
            // …and after it, the old version is gone while the new one stays.
            try await Task.sleep(for: .seconds(grace + 1))
            #expect(try await store.snapshot(ranking: "featured", query: "curry rice", version: 1_000) == nil)
            #expect(try await store.currentSnapshot(ranking: "featured", query: "curry rice") == second)
        }
    }

    @Test func theCurrentSnapshotIsOneReadThatLeavesOutTheVersionTheCallerHolds() async throws {
        try await withRedisClient(try TestEnvironment.redisURL()) { (redis: RedisClient) async throws -> Void in
            let store = PrecomputeStore(redis: redis, keys: CacheKeys(prefix: TestEnvironment.uniqueName("braid")))
            let keys = store.keys.ranking("featured", query: "miso soup")
            let first = Self.snapshot("featured", "miso soup", version: 1_000, ids: ["r1", "r2"])
            let second = Self.snapshot("featured", "miso soup", version: 2_000, ids: ["r3"])

            guard case .none = try await store.currentSnapshot(ranking: "featured", query: "miso soup", unless: nil) else {
                Issue.record("a snapshot before any was written"); return
            }
            #expect(try await store.publish(first, ttlSeconds: 600, graceSeconds: 60) == .written)
            let stored = try #require(try await redis.get(keys.version(1_000)))
            guard case .read(let read, let bytes) = try await store.currentSnapshot(ranking: "featured", query: "Miso  Soup", unless: nil) else {
                Issue.record("the snapshot was not read"); return
            }
            #expect(read == first)
            #expect(bytes == stored.readableBytes)
            guard case .held(version: 1_000) = try await store.currentSnapshot(ranking: "featured", query: "miso soup", unless: 1_000) else {
                Issue.record("the held version was sent again"); return
            }
            // Holding another version is no reason to leave the current one out.
            guard case .read(let again, _) = try await store.currentSnapshot(ranking: "featured", query: "miso soup", unless: 999) else {
                Issue.record("the snapshot was not read"); return
            }
            #expect(again == first)
            #expect(try await store.publish(second, ttlSeconds: 600, graceSeconds: 60) == .written)
            guard case .read(let newer, _) = try await store.currentSnapshot(ranking: "featured", query: "miso soup", unless: 1_000) else {
                Issue.record("the new version was not read"); return
            }
            #expect(newer == second)

            // A pointer whose version is gone, and a pointer that is not a version.
            try await redis.set(keys.pointer, to: "3000")
            guard case .expired(version: 3_000) = try await store.currentSnapshot(ranking: "featured", query: "miso soup", unless: nil) else {
                Issue.record("an expired version was not reported"); return
            }
            try await redis.set(keys.pointer, to: "not-a-number")
            await #expect(throws: StoredValueError.self) { try await store.currentSnapshot(ranking: "featured", query: "miso soup", unless: nil) }
        }
    }

    @Test func anOlderOrReplayedRequestNeverReplacesANewerSnapshot() async throws {
        try await withRedisClient(try TestEnvironment.redisURL()) { (redis: RedisClient) async throws -> Void in
            let store = PrecomputeStore(redis: redis, keys: CacheKeys(prefix: TestEnvironment.uniqueName("braid")))
            let newer = Self.snapshot("fresh", "miso", version: 5_000, ids: ["a"])
            #expect(try await store.publish(newer, ttlSeconds: 600, graceSeconds: 60) == .written)
            #expect(try await store.publish(Self.snapshot("fresh", "miso", version: 4_000, ids: ["b"]), ttlSeconds: 600, graceSeconds: 60) == .stale)
            #expect(try await store.publish(newer, ttlSeconds: 600, graceSeconds: 60) == .stale)
            #expect(try await store.currentSnapshot(ranking: "fresh", query: "miso") == newer)
            // The stale write left no orphan version behind.
            #expect(try await store.snapshot(ranking: "fresh", query: "miso", version: 4_000) == nil)
        }
    }

    @Test func componentContentIsStoredWithItsStateHashAndVersioned() async throws {
        try await withRedisClient(try TestEnvironment.redisURL()) { (redis: RedisClient) async throws -> Void in
            let store = PrecomputeStore(redis: redis, keys: CacheKeys(prefix: TestEnvironment.uniqueName("braid")))
            let scope = ComponentScope(user: "u42")
            let content = ComponentContent(
                feed: "home", type: .recommendedRecipes, scope: scope, items: [.object(["id": .string("r1")])],
                version: 10, createdAt: Date(timeIntervalSince1970: 1))
            #expect(try await store.component(feed: "home", type: .recommendedRecipes, scope: scope) == nil)
            #expect(try await store.publish(content, ttlSeconds: 600) == .written)
            let older = ComponentContent(feed: "home", type: .recommendedRecipes, scope: scope, items: [], version: 9, createdAt: Date())
            #expect(try await store.publish(older, ttlSeconds: 600) == .stale)
            let stored = try await store.component(feed: "home", type: .recommendedRecipes, scope: scope)
            #expect(stored == content)
            #expect(stored?.stateHash == ComponentContent.stateHash(of: content.items))
            let key = store.keys.component(feed: "home", type: .recommendedRecipes, scope: scope)
            #expect(try await redis.hgetall(key)["state_hash"].map { String(buffer: $0) } == content.stateHash)
        }
    }

    @Test func aForeignValueIsReportedNotMisread() async throws {
        try await withRedisClient(try TestEnvironment.redisURL()) { (redis: RedisClient) async throws -> Void in
            let store = PrecomputeStore(redis: redis, keys: CacheKeys(prefix: TestEnvironment.uniqueName("braid")))
            try await redis.set(store.keys.ranking("featured", query: "x").pointer, to: "not-a-number")
            await #expect(throws: StoredValueError.self) { try await store.currentVersion(ranking: "featured", query: "x") }
        }
    }
}
