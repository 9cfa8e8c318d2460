/// One partition of one topic.
public struct TopicPartition: Hashable, Sendable, CustomStringConvertible {
    public var topic: String
    public var partition: Int32

    public init(topic: String, partition: Int32) {
        self.topic = topic
        self.partition = partition
    }

    public var description: String { "\(topic)[\(partition)]" }
}

/// A message header: a name and raw bytes.
public struct KafkaHeader: Hashable, Sendable {
    public var name: String
    public var value: [UInt8]

    public init(name: String, value: [UInt8]) {
        self.name = name
        self.value = value
    }

    public init(name: String, value: String) {
        self.init(name: name, value: Array(value.utf8))
    }
}
