import CRdKafka
import Foundation

/// The newest messages of a topic and how many it holds, per partition.
public struct KafkaTopicTail: Sendable {
    public struct Partition: Sendable, Equatable {
        public var partition: Int32
        public var lowWatermark: Int64
        public var highWatermark: Int64
        /// Messages the topic still holds in this partition (high − low).
        public var count: Int64 { max(highWatermark - lowWatermark, 0) }
    }

    public var topic: String
    public var partitions: [Partition]
    /// Up to the requested number of the newest messages of each partition, by partition and offset.
    public var messages: [KafkaConsumerMessage]
}

extension KafkaAdmin {
    /// The last `perPartition` messages of every partition of `topic`, read by assigning a
    /// consumer that joins no group and commits nothing (nobody's offsets move).
    public func tail(topic: String, perPartition: Int) async throws -> KafkaTopicTail {
        let count = try await partitionCount(of: topic)
        let lags = try await lag(group: "braid-tail-\(UUID().uuidString.prefix(8).lowercased())", topic: topic)
        let partitions = lags.map {
            KafkaTopicTail.Partition(partition: $0.partition, lowWatermark: $0.highWatermark - $0.lag, highWatermark: $0.highWatermark)
        }.sorted { $0.partition < $1.partition }
        let wanted = partitions.filter { $0.count > 0 }
        guard perPartition > 0, !wanted.isEmpty, count > 0 else {
            return KafkaTopicTail(topic: topic, partitions: partitions, messages: [])
        }
        var consumerProperties = properties
        consumerProperties.merge([
            "bootstrap.servers": brokers, "group.id": "braid-tail", "enable.auto.commit": "false",
            "enable.auto.offset.store": "false", "enable.partition.eof": "true",
        ]) { _, new in new }
        let consumer = try RDKafkaHandle(.consumer, properties: consumerProperties, context: CallbackContext(logger: logger, statistics: nil))
        let timeout = timeoutMilliseconds
        let messages = try await BlockingCalls.run {
            defer { consumer.destroy(flags: Int32(RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE)) }
            return try consumer.withPointer { rk in Self.readTail(rk, topic, wanted, perPartition, timeout) }
        }
        return KafkaTopicTail(
            topic: topic, partitions: partitions,
            messages: messages.sorted { ($0.partition, $0.offset) < ($1.partition, $1.offset) })
    }

    private static func readTail(
        _ rk: OpaquePointer, _ topic: String, _ partitions: [KafkaTopicTail.Partition], _ perPartition: Int, _ timeout: Int32
    ) -> [KafkaConsumerMessage] {
        let end = Dictionary(uniqueKeysWithValues: partitions.map { ($0.partition, $0.highWatermark) })
        let start = Dictionary(uniqueKeysWithValues: partitions.map { ($0.partition, max($0.highWatermark - Int64(perPartition), $0.lowWatermark)) })
        let assigned = TopicPartitionList.with(partitions.map { TopicPartition(topic: topic, partition: $0.partition) }, offset: {
            start[$0.partition]
        }) { rd_kafka_assign(rk, $0) }
        guard assigned == RD_KAFKA_RESP_ERR_NO_ERROR else { return [] }
        defer { rd_kafka_assign(rk, nil) }
        let names = TopicNames()
        var done = Set<Int32>()
        var messages: [KafkaConsumerMessage] = []
        let deadline = Date().addingTimeInterval(Double(timeout) / 1000)
        while done.count < partitions.count, Date() < deadline {
            guard let message = rd_kafka_consumer_poll(rk, 100) else { continue }
            defer { rd_kafka_message_destroy(message) }
            let partition = message.pointee.partition
            if message.pointee.err == RD_KAFKA_RESP_ERR__PARTITION_EOF {
                done.insert(partition)
                continue
            }
            guard message.pointee.err == RD_KAFKA_RESP_ERR_NO_ERROR else { continue }
            if let high = end[partition], message.pointee.offset < high {
                messages.append(KafkaConsumerMessage(copying: message, topicNames: names))
                if message.pointee.offset + 1 >= high { done.insert(partition) }
            }
        }
        return messages
    }
}
