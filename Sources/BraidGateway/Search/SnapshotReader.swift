import BraidCore
import BraidWorker
import Metrics

/// Reads snapshots of B for pages: the current version through the Redis pointer, and any
/// version's documents through the in-process near-cache (versions are immutable, so a
/// cached one is never stale).
public struct SnapshotReader: Sendable {
    struct Key: Hashable, Sendable {
        var ranking: String
        var query: String
        var version: Int64
    }

    let store: PrecomputeStore
    let nearCache: NearCache<Key, RankingSnapshot>

    public init(store: PrecomputeStore, nearCacheBytes: Int) {
        self.store = store
        self.nearCache = NearCache(capacityBytes: nearCacheBytes)
    }

    /// The snapshot the pointer names, or nil when there is none. One Redis round trip
    /// when the version is in the near-cache.
    public func current(ranking: String, query: String) async throws -> RankingSnapshot? {
        for _ in 0..<2 {
            guard let version = try await store.currentVersion(ranking: ranking, query: query) else { return nil }
            // The version can expire between the two reads; the pointer has moved on then.
            if let snapshot = try await pinned(ranking: ranking, query: query, version: version) { return snapshot }
        }
        return nil
    }

    /// One version, or nil when it has expired.
    public func pinned(ranking: String, query: String, version: Int64) async throws -> RankingSnapshot? {
        let key = Key(ranking: ranking, query: query, version: version)
        if let cached = nearCache.value(for: key) {
            Counter(label: "braid_gateway_near_cache_hits_total").increment()
            return cached
        }
        Counter(label: "braid_gateway_near_cache_misses_total").increment()
        guard let stored = try await store.storedSnapshot(ranking: ranking, query: query, version: version) else { return nil }
        nearCache.insert(stored.snapshot, bytes: stored.bytes, for: key)
        Gauge(label: "braid_gateway_near_cache_bytes").record(nearCache.bytes)
        return stored.snapshot
    }
}
