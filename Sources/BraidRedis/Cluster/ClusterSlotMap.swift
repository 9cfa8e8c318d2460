/// Which primary serves each of the 16384 slots, and the replicas of each primary.
/// A value: the router swaps in a new map after each refresh.
struct ClusterSlotMap: Sendable, Equatable {
    struct Shard: Sendable, Equatable {
        var primary: RedisEndpoint
        var replicas: [RedisEndpoint]
    }

    private(set) var shards: [Shard]
    /// Index into `shards` per slot; -1 when no node serves the slot.
    private var owners: [Int16]

    init() {
        shards = []
        owners = Array(repeating: -1, count: RedisHashSlot.count)
    }

    /// A map from slot ranges; a later range wins where ranges overlap.
    init(_ assignments: [(slots: ClosedRange<Int>, shard: Shard)]) {
        self.init()
        for (slots, shard) in assignments {
            let index = shardIndex(of: shard)
            for slot in slots.clamped(to: 0...(RedisHashSlot.count - 1)) { owners[slot] = Int16(index) }
        }
        dropUnusedShards()
    }

    func primary(forSlot slot: Int) -> RedisEndpoint? {
        let index = owners[slot]
        return index < 0 ? nil : shards[Int(index)].primary
    }

    /// The primaries that serve at least one slot, sorted.
    var primaries: [RedisEndpoint] { shards.map(\.primary).sorted() }

    /// Every node the map names, primaries first: whom to ask for the next map.
    var nodes: [RedisEndpoint] { primaries + shards.flatMap(\.replicas).sorted() }

    /// Slots that some primary serves.
    var coveredSlots: Int { owners.lazy.filter { $0 >= 0 }.count }

    var isComplete: Bool { coveredSlots == RedisHashSlot.count }

    /// After a MOVED: the slot now lives on `endpoint`. Later commands for the slot go there
    /// at once, before the full refresh that a MOVED also triggers has finished.
    mutating func assign(slot: Int, to endpoint: RedisEndpoint) {
        let index = shards.firstIndex { $0.primary == endpoint } ?? {
            shards.append(Shard(primary: endpoint, replicas: []))
            return shards.count - 1
        }()
        owners[slot] = Int16(index)
        dropUnusedShards()
    }

    private mutating func shardIndex(of shard: Shard) -> Int {
        if let index = shards.firstIndex(where: { $0.primary == shard.primary }) {
            for replica in shard.replicas where !shards[index].replicas.contains(replica) { shards[index].replicas.append(replica) }
            return index
        }
        shards.append(shard)
        return shards.count - 1
    }

    /// Removes shards that serve no slot and renumbers the owners.
    private mutating func dropUnusedShards() {
        var used = Array(repeating: false, count: shards.count)
        for owner in owners where owner >= 0 { used[Int(owner)] = true }
        guard used.contains(false) else { return }
        var renumbered = Array(repeating: Int16(-1), count: shards.count)
        var kept: [Shard] = []
        for (index, shard) in shards.enumerated() where used[index] {
            renumbered[index] = Int16(kept.count)
            kept.append(shard)
        }
        shards = kept
        for slot in owners.indices where owners[slot] >= 0 { owners[slot] = renumbered[Int(owners[slot])] }
    }
}
