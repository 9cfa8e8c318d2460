import BraidContracts
import BraidCore
import BraidPrecompute
import BraidRedis
import BraidTestSupport
import Foundation
import Testing

@Suite("walk records against a real Redis", .integration)
struct WalkStoreTests {
    static func page(_ ids: [String], total: Int? = 100) -> WalkRecord.Page { WalkRecord.Page(ids: ids, aTotal: total) }

    @Test func pagesAreAppendedInOrderOnlyAndAPageRecordedFirstWins() async throws {
        try await withRedisClient(try TestEnvironment.redisURL()) { (redis: RedisClient) async throws -> Void in
            let store = WalkStore(redis: redis, keys: CacheKeys(prefix: TestEnvironment.uniqueName("braid")), maxBytes: 4_096)
            let expiry = Int64(Date().timeIntervalSince1970) + 600
            #expect(try await store.read(7) == nil)
            // Page 2 of a walk whose page 1 travelled in its cursor: both at once.
            let first = Self.page(["r1", "r2"], total: nil)
            let second = Self.page(["r3", "r4"])
            #expect(try await store.append(7, pages: [first, second], from: 1, expiresAt: expiry) == .appended)
            #expect(try await store.read(7) == WalkRecord(pages: [first, second], expiresAt: expiry))
            // The same page again (a retry, or a second gateway): the one recorded first comes back.
            #expect(try await store.append(7, pages: [first, Self.page(["r9"])], from: 1, expiresAt: expiry + 5) == .existing(second, expiresAt: expiry))
            #expect(try await store.append(7, pages: [Self.page(["r9"])], from: 2, expiresAt: expiry) == .existing(second, expiresAt: expiry))
            // A gap: a page whose predecessor was never recorded.
            #expect(try await store.append(7, pages: [Self.page(["r9"])], from: 4, expiresAt: expiry) == .lost)
            #expect(try await store.append(8, pages: [Self.page(["r9"])], from: 3, expiresAt: expiry) == .lost)
            let third = Self.page(["r5"], total: 3)
            #expect(try await store.append(7, pages: [third], from: 3, expiresAt: expiry + 60) == .appended)
            let record = try #require(try await store.read(7))
            #expect(record.pages == [first, second, third])
            #expect(record.expiresAt == expiry + 60)
            #expect(record.step(forPage: 4) == .extend(shown: ["r1", "r2", "r3", "r4", "r5"]))
            // The record lives as long as the walk's latest cursor, never shorter.
            _ = try await store.append(7, pages: [Self.page([])], from: 4, expiresAt: expiry)
            #expect(try await store.read(7)?.expiresAt == expiry + 60)
            // No Redis TTL: a volatile eviction policy never takes it; the retention sweep deletes it after `e`.
            #expect(try await redis.ttl(store.keys.walk(7)) == .persistent)
        }
    }

    @Test func aRecordStopsAtItsSizeCap() async throws {
        try await withRedisClient(try TestEnvironment.redisURL()) { (redis: RedisClient) async throws -> Void in
            let store = WalkStore(redis: redis, keys: CacheKeys(prefix: TestEnvironment.uniqueName("braid")), maxBytes: 40)
            let expiry = Int64(Date().timeIntervalSince1970) + 600
            let ids = (0..<8).map { "r00010\($0)" }
            let page = Self.page(ids)
            let refused = Self.page(ids.map { "another-\($0)" })
            #expect(page.encoded().count <= 40 && page.encoded().count + refused.encoded().count > 40)
            #expect(try await store.append(1, pages: [page], from: 1, expiresAt: expiry) == .appended)
            #expect(try await store.append(1, pages: [refused], from: 2, expiresAt: expiry) == .capped)
            #expect(try await store.read(1)?.pages == [page], "nothing of the refused page is stored")
        }
    }

    @Test func walkRecordsWorkOnARedisCluster() async throws {
        try await withRedisClusterClient(try TestEnvironment.redisClusterURLs()) { (redis: RedisClient) async throws -> Void in
            let store = WalkStore(redis: redis, keys: CacheKeys(prefix: TestEnvironment.uniqueName("braid")), maxBytes: 4_096)
            let expiry = Int64(Date().timeIntervalSince1970) + 600
            for walk in [UInt64(1), 2, 3, .max] {
                #expect(try await store.append(walk, pages: [Self.page(["a"], total: nil), Self.page(["b"])], from: 1, expiresAt: expiry) == .appended)
                #expect(try await store.read(walk)?.pages.count == 2)
            }
        }
    }
}
