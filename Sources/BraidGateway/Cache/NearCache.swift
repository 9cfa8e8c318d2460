import Synchronization

/// An in-process LRU cache bounded by bytes, for immutable values (snapshot versions never
/// change, so an entry can never be stale — only evicted).
///
/// A pinned page then needs no Redis round trip at all and waits on the live backend only.
public final class NearCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Entry {
        var value: Value
        var bytes: Int
        var lastUse: UInt64
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var bytes = 0
        var clock: UInt64 = 0
    }

    public let capacityBytes: Int
    private let state = Mutex(State())

    public init(capacityBytes: Int) {
        self.capacityBytes = max(0, capacityBytes)
    }

    public func value(for key: Key) -> Value? {
        state.withLock { state in
            guard var entry = state.entries[key] else { return nil }
            state.clock += 1
            entry.lastUse = state.clock
            state.entries[key] = entry
            return entry.value
        }
    }

    /// Stores a value of the given size; values larger than the whole cache are not kept.
    public func insert(_ value: Value, bytes: Int, for key: Key) {
        guard bytes <= capacityBytes else { return }
        state.withLock { state in
            state.clock += 1
            if let old = state.entries.updateValue(Entry(value: value, bytes: bytes, lastUse: state.clock), forKey: key) {
                state.bytes -= old.bytes
            }
            state.bytes += bytes
            guard state.bytes > capacityBytes else { return }
            // Evict least recently used entries. Linear in the entry count, but only when
            // full, and entries are whole snapshots (kilobytes), so there are few.
            let byAge = state.entries.sorted { $0.value.lastUse < $1.value.lastUse }
            for (candidate, entry) in byAge where state.bytes > capacityBytes && candidate != key {
                state.entries[candidate] = nil
                state.bytes -= entry.bytes
            }
        }
    }

    /// Bytes currently held (for the `braid_near_cache_bytes` gauge).
    public var bytes: Int { state.withLock { $0.bytes } }
    public var count: Int { state.withLock { $0.entries.count } }
}
