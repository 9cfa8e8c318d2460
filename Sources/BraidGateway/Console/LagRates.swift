import BraidCore

/// Per-partition rates from two lag readings of one group: committed offsets give what the
/// workers consumed, high watermarks what was produced. Pure, so it is unit tested.
public enum LagRates {
    public struct Reading: Sendable {
        public var at: Double
        public var partitions: [WorkerStatus.PartitionLag]

        public init(at: Double, partitions: [WorkerStatus.PartitionLag]) {
            self.at = at
            self.partitions = partitions
        }
    }

    /// `current`'s partitions with their rates since `previous` (none without a previous
    /// reading, or for a partition that was not committed in both).
    public static func apply(previous: Reading?, current: Reading) -> [WorkerStatus.PartitionLag] {
        let before = Dictionary((previous?.partitions ?? []).map { ($0.partition, $0) }, uniquingKeysWith: { first, _ in first })
        return current.partitions.map { partition in
            var rated = partition
            if let previous, let old = before[partition.partition] {
                if let committed = partition.committed, let earlier = old.committed {
                    rated.consumedPerSecond = CounterRate.perSecond(from: (earlier, previous.at), to: (committed, current.at))
                }
                rated.producedPerSecond = CounterRate.perSecond(
                    from: (old.highWatermark, previous.at), to: (partition.highWatermark, current.at))
            }
            return rated
        }
    }
}
