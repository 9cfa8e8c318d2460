import BraidContracts
import BraidObservability
import Metrics
import Synchronization

/// An in-process cache bounded by bytes, for immutable values (snapshot versions and component
/// contents by version never change, so an entry can never be stale — only evicted).
///
/// Kept by W-TinyLFU (``TinyLFUStore``): entries used often stay while one-off entries (a crawl
/// of rare queries, a scan of old versions) stream through without evicting them. Evictions and
/// rejections are counted per cache (`braid_gateway_near_cache_{evictions,rejections}_total`).
public final class NearCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let store: Mutex<TinyLFUStore<Key, Value>>
    private let evictions: Counter
    private let rejections: Counter
    private let entries: Gauge

    public let capacityBytes: Int

    /// - Parameter name: the `cache` label of its metrics (`snapshot`, `component`).
    public init(capacityBytes: Int, name: String) {
        self.capacityBytes = max(0, capacityBytes)
        self.store = Mutex(TinyLFUStore(capacity: capacityBytes))
        self.evictions = Counter(.gatewayNearCacheEvictions, dimensions: [("cache", name)])
        self.rejections = Counter(.gatewayNearCacheRejections, dimensions: [("cache", name)])
        self.entries = Gauge(.gatewayNearCacheEntries, dimensions: [("cache", name)])
    }

    public func value(for key: Key) -> Value? {
        store.withLock { $0.value(for: key) }
    }

    /// Stores a value of the given size; values larger than the whole cache are not kept, and
    /// a value seen less often than what it would displace is turned away.
    public func insert(_ value: Value, bytes: Int, for key: Key) {
        let (evicted, rejected, count) = store.withLock { store in
            let before = (store.evictions, store.rejections)
            store.insert(value, bytes: bytes, for: key)
            return (store.evictions - before.0, store.rejections - before.1, store.count)
        }
        entries.record(count)
        if evicted > 0 { evictions.increment(by: evicted) }
        if rejected > 0 { rejections.increment(by: rejected) }
    }

    /// Bytes currently held (for the `braid_gateway_near_cache_bytes` gauges).
    public var bytes: Int { store.withLock { $0.bytes } }
    public var count: Int { store.withLock { $0.count } }
}
