/// How far a consumer group is behind on one partition.
public struct KafkaPartitionLag: Sendable, Equatable {
    public var topic: String
    public var partition: Int32
    /// The group's committed offset (the next message it will read); `nil` if it never committed.
    public var committed: Int64?
    /// The offset the next produced message will get.
    public var highWatermark: Int64
    /// Messages the group has not consumed yet.
    public var lag: Int64

    public init(topic: String, partition: Int32, committed: Int64?, lowWatermark: Int64, highWatermark: Int64) {
        self.topic = topic
        self.partition = partition
        self.committed = committed
        self.highWatermark = highWatermark
        self.lag = Self.lag(committed: committed, lowWatermark: lowWatermark, highWatermark: highWatermark)
    }

    /// Without a commit, the group starts at the earliest retained message (Braid consumers
    /// use `auto.offset.reset=earliest`), so everything retained counts as lag.
    static func lag(committed: Int64?, lowWatermark: Int64, highWatermark: Int64) -> Int64 {
        let start = max(committed ?? lowWatermark, lowWatermark)
        return max(highWatermark - start, 0)
    }
}
