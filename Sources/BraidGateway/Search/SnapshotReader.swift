import BraidContracts
import BraidCore
import BraidObservability
import BraidPrecompute
import Metrics
import Synchronization

/// Where snapshots are read from: ``PrecomputeStore`` on Redis. A protocol so a test can put
/// a delay (and a record of when each read starts and ends) in front of the real store.
public protocol SnapshotStore: Sendable {
    func currentVersion(ranking: String, query: String) async throws -> Int64?
    func storedSnapshot(ranking: String, query: String, version: Int64) async throws -> (snapshot: RankingSnapshot, bytes: Int)?
    /// The pointer's version with its snapshot unless it is `held`; the default reads
    /// ``currentVersion(ranking:query:)`` and then ``storedSnapshot(ranking:query:version:)``.
    func currentSnapshot(ranking: String, query: String, unless held: Int64?) async throws -> CurrentSnapshotRead
    /// The Redis key of the ranking's pointer, as key tracking names it.
    func pointerKey(ranking: String, query: String) -> String
}

extension SnapshotStore {
    public func pointerKey(ranking: String, query: String) -> String {
        CacheKeys().ranking(ranking, query: query).pointer
    }

    public func currentSnapshot(ranking: String, query: String, unless held: Int64?) async throws -> CurrentSnapshotRead {
        guard let version = try await currentVersion(ranking: ranking, query: query) else { return .none }
        if version == held { return .held(version: version) }
        guard let stored = try await storedSnapshot(ranking: ranking, query: query, version: version) else { return .expired(version: version) }
        return .read(stored.snapshot, bytes: stored.bytes)
    }
}

extension PrecomputeStore: SnapshotStore {
    public func pointerKey(ranking: String, query: String) -> String {
        keys.ranking(ranking, query: query).pointer
    }
}

/// Reads snapshots of B for pages: the current version through the Redis pointer (kept in
/// memory until Redis says it moved, with key tracking), and any version's documents through
/// the in-process near-cache (versions are immutable, so a cached one is never stale).
public struct SnapshotReader: Sendable {
    struct Key: Hashable, Sendable {
        var ranking: String
        var query: String
        var version: Int64
    }

    let store: any SnapshotStore
    let nearCache: NearCache<Key, RankingSnapshot>
    let pointers: PointerCache
    /// Pointers kept current by key tracking; nil without it.
    let tracked: TrackedVersions?

    /// - Parameters:
    ///   - pointerTTL: how long a read pointer is reused while `tracked` is not tracking;
    ///     zero reads Redis every time then.
    ///   - tracked: pointers kept until Redis says they moved (``TrackedVersions``).
    public init(store: any SnapshotStore, nearCacheBytes: Int, pointerTTL: Duration = .zero, tracked: TrackedVersions? = nil) {
        self.store = store
        self.nearCache = NearCache(capacityBytes: nearCacheBytes, name: "snapshot")
        self.pointers = PointerCache(ttl: pointerTTL)
        self.tracked = tracked
    }

    /// The version the pointer names when it is known without asking Redis: kept current by
    /// key tracking, or (while tracking is not established) read less than `pointerTTL` ago.
    /// `redisKey`: the pointer's key, when already at hand.
    private func knownVersion(ranking: String, query: String, redisKey: String? = nil) -> Int64? {
        if let tracked, tracked.isTracking {
            return tracked.version(for: redisKey ?? store.pointerKey(ranking: ranking, query: query))
        }
        return pointers.version(for: Key(ranking: ranking, query: query, version: 0))
    }

    /// The snapshot the pointer names, or nil when there is none. No Redis round trip when
    /// the pointer is known (``knownVersion``) and its version is in the near-cache;
    /// otherwise one, which sends the documents only when the near-cache lacks that version.
    public func current(ranking: String, query: String) async throws -> RankingSnapshot? {
        let pointerKey = Key(ranking: ranking, query: query, version: 0)
        let redisKey = tracked.map { _ in store.pointerKey(ranking: ranking, query: query) }
        if let version = knownVersion(ranking: ranking, query: query, redisKey: redisKey),
            let snapshot = nearCache.value(for: Key(ranking: ranking, query: query, version: version))
        {
            return snapshot
        }
        let ticket = redisKey.flatMap { tracked?.ticket(for: $0) }
        func remember(_ version: Int64) {
            pointers.remember(version, for: pointerKey)
            if let tracked, let redisKey, let ticket { tracked.remember(version, for: redisKey, ticket: ticket) }
        }
        var held = pointers.lastVersion(for: pointerKey).flatMap { version in
            nearCache.value(for: Key(ranking: ranking, query: query, version: version)).map { (version: version, snapshot: $0) }
        }
        for _ in 0..<2 {
            switch try await store.currentSnapshot(ranking: ranking, query: query, unless: held?.version) {
            case .none:
                return nil
            case .held(let version):
                remember(version)
                if let held, held.version == version {
                    Counter(.gatewayNearCacheHits).increment()
                    return held.snapshot
                }
                held = nil  // not what was asked: read the documents this time
            case .read(let snapshot, let bytes):
                remember(snapshot.version)
                Counter(.gatewayNearCacheMisses).increment()
                nearCache.insert(snapshot, bytes: bytes, for: Key(ranking: ranking, query: query, version: snapshot.version))
                Gauge(.gatewayNearCacheBytes).record(nearCache.bytes)
                return snapshot
            case .expired:
                // The pointer moved on between a refresh's writes; it names a live version now.
                continue
            }
        }
        return nil
    }

    /// The current snapshot when it is known without any I/O (``knownVersion``, its version
    /// in the near-cache); nil when Redis must be asked.
    public func knownCurrent(ranking: String, query: String) -> RankingSnapshot? {
        guard let version = knownVersion(ranking: ranking, query: query) else { return nil }
        return knownPinned(ranking: ranking, query: query, version: version)
    }

    /// One version when it is in the near-cache; nil when Redis must be asked.
    public func knownPinned(ranking: String, query: String, version: Int64) -> RankingSnapshot? {
        guard let snapshot = nearCache.value(for: Key(ranking: ranking, query: query, version: version)) else { return nil }
        Counter(.gatewayNearCacheHits).increment()
        return snapshot
    }

    /// One version, or nil when it has expired.
    public func pinned(ranking: String, query: String, version: Int64) async throws -> RankingSnapshot? {
        let key = Key(ranking: ranking, query: query, version: version)
        if let cached = nearCache.value(for: key) {
            Counter(.gatewayNearCacheHits).increment()
            return cached
        }
        Counter(.gatewayNearCacheMisses).increment()
        guard let stored = try await store.storedSnapshot(ranking: ranking, query: query, version: version) else { return nil }
        nearCache.insert(stored.snapshot, bytes: stored.bytes, for: key)
        Gauge(.gatewayNearCacheBytes).record(nearCache.bytes)
        return stored.snapshot
    }
}

/// Recently read snapshot pointers, used while key tracking is off or not established
/// (``TrackedVersions`` otherwise). Reusing one for a moment is safe: a session pins
/// whichever version its first page used, and the version it replaced stays readable for
/// its grace period. Hot queries then cost no Redis round trip on page 1 either. Past its
/// TTL a pointer still tells Redis which version the near-cache may hold.
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

    /// The version read less than `ttl` ago, which may be used without asking Redis.
    func version(for key: SnapshotReader.Key) -> Int64? {
        guard ttl > .zero else { return nil }
        let now = ContinuousClock.now
        return entries.withLock { entries in
            guard let entry = entries[key], now - entry.readAt < ttl else { return nil }
            return entry.version
        }
    }

    /// The version read last, however long ago (also with a zero `ttl`): what to tell Redis
    /// the near-cache may already hold.
    func lastVersion(for key: SnapshotReader.Key) -> Int64? {
        entries.withLock { $0[key]?.version }
    }

    func remember(_ version: Int64, for key: SnapshotReader.Key) {
        let now = ContinuousClock.now
        entries.withLock { entries in
            if entries.count >= Self.maxEntries { entries.removeAll(keepingCapacity: true) }
            entries[key] = Entry(version: version, readAt: now)
        }
    }
}
