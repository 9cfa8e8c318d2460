/// A message to produce.
public struct KafkaProducerMessage: Sendable {
    public var topic: String
    /// `nil` lets librdkafka's partitioner choose from the key (consistent hashing).
    public var partition: Int32?
    public var key: [UInt8]?
    public var value: [UInt8]
    public var headers: [KafkaHeader]

    public init(topic: String, partition: Int32? = nil, key: [UInt8]? = nil, value: [UInt8], headers: [KafkaHeader] = []) {
        self.topic = topic
        self.partition = partition
        self.key = key
        self.value = value
        self.headers = headers
    }

    public init(topic: String, partition: Int32? = nil, key: String?, value: String, headers: [KafkaHeader] = []) {
        self.init(topic: topic, partition: partition, key: key.map { Array($0.utf8) }, value: Array(value.utf8), headers: headers)
    }
}

/// Where the broker stored a message, or why it did not.
public struct KafkaDeliveryReport: Sendable {
    public var topic: String
    public var partition: Int32
    /// The message's offset; -1 when delivery failed.
    public var offset: Int64
    /// `nil` when the broker acknowledged the message.
    public var error: KafkaError?
}

/// Running totals of fire-and-forget deliveries (``KafkaProducer/send(_:)``).
public struct KafkaDeliveryCounts: Sendable, Equatable {
    public var delivered = 0
    public var failed = 0

    public init(delivered: Int = 0, failed: Int = 0) {
        self.delivered = delivered
        self.failed = failed
    }
}
