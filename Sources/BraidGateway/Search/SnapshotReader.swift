import BraidCore
import BraidPrecompute
import Metrics
import Synchronization

/// Where snapshots are read from: ``PrecomputeStore`` on Redis. A protocol so a test can put
/// a delay (and a record of when each read starts and ends) in front of the real store.
public protocol SnapshotStore: Sendable {
    func currentVersion(ranking: String, query: String) async throws -> Int64?
    func storedSnapshot(ranking: String, query: String, version: Int64) async throws -> (snapshot: RankingSnapshot, bytes: Int)?
}

extension PrecomputeStore: SnapshotStore {}

/// Reads snapshots of B for pages: the current version through the Redis pointer, and any
/// version's documents through the in-process near-cache (versions are immutable, so a
/// cached one is never stale).
public struct SnapshotReader: Sendable {
    struct Key: Hashable, Sendable {
        var ranking: String
        var query: String
        var version: Int64
    }

    let store: any SnapshotStore
    let nearCache: NearCache<Key, RankingSnapshot>
    let pointers: PointerCache

    /// - Parameter pointerTTL: how long a read pointer is reused; zero reads Redis every time.
    public init(store: any SnapshotStore, nearCacheBytes: Int, pointerTTL: Duration = .zero) {
        self.store = store
        self.nearCache = NearCache(capacityBytes: nearCacheBytes)
        self.pointers = PointerCache(ttl: pointerTTL)
    }

    /// The snapshot the pointer names, or nil when there is none. No Redis round trip when
    /// the pointer was read less than `pointerTTL` ago and its version is in the near-cache.
    public func current(ranking: String, query: String) async throws -> RankingSnapshot? {
        let pointerKey = Key(ranking: ranking, query: query, version: 0)
        if let version = pointers.version(for: pointerKey), let snapshot = nearCache.value(for: Key(ranking: ranking, query: query, version: version)) {
            return snapshot
        }
        for _ in 0..<2 {
            guard let version = try await store.currentVersion(ranking: ranking, query: query) else { return nil }
            pointers.remember(version, for: pointerKey)
            // The version can expire between the two reads; the pointer has moved on then.
            if let snapshot = try await pinned(ranking: ranking, query: query, version: version) { return snapshot }
        }
        return nil
    }

    /// The current snapshot when it is known without any I/O (a pointer read less than
    /// `pointerTTL` ago, its version in the near-cache); nil when Redis must be asked.
    public func knownCurrent(ranking: String, query: String) -> RankingSnapshot? {
        guard let version = pointers.version(for: Key(ranking: ranking, query: query, version: 0)) else { return nil }
        return knownPinned(ranking: ranking, query: query, version: version)
    }

    /// One version when it is in the near-cache; nil when Redis must be asked.
    public func knownPinned(ranking: String, query: String, version: Int64) -> RankingSnapshot? {
        guard let snapshot = nearCache.value(for: Key(ranking: ranking, query: query, version: version)) else { return nil }
        Counter(label: "braid_gateway_near_cache_hits_total").increment()
        return snapshot
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

/// Recently read snapshot pointers. Reusing one for a moment is safe: a session pins
/// whichever version its first page used, and the version it replaced stays readable for
/// its grace period. Hot queries then cost no Redis round trip on page 1 either.
final class PointerCache: Sendable {
    private struct Entry {
        var version: Int64
        var readAt: ContinuousClock.Instant
    }

    let ttl: Duration
    /// Beyond this many entries the cache starts over (a pointer is one short read away).
    static let maxEntries = 100_000
    private let entries = Mutex<[SnapshotReader.Key: Entry]>([:])

    init(ttl: Duration) {
        self.ttl = ttl
    }

    func version(for key: SnapshotReader.Key) -> Int64? {
        guard ttl > .zero else { return nil }
        let now = ContinuousClock.now
        return entries.withLock { entries in
            guard let entry = entries[key], now - entry.readAt < ttl else { return nil }
            return entry.version
        }
    }

    func remember(_ version: Int64, for key: SnapshotReader.Key) {
        guard ttl > .zero else { return }
        let now = ContinuousClock.now
        entries.withLock { entries in
            if entries.count >= Self.maxEntries { entries.removeAll(keepingCapacity: true) }
            entries[key] = Entry(version: version, readAt: now)
        }
    }
}
