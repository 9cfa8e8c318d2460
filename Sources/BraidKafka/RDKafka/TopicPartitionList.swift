import CRdKafka

/// Scoped `rd_kafka_topic_partition_list_t`s: created, used and destroyed in one call.
enum TopicPartitionList {
    typealias Pointer = UnsafeMutablePointer<rd_kafka_topic_partition_list_t>

    /// A list of `partitions`, each with `offset` when given, alive during `body`.
    static func with<T>(
        _ partitions: some Collection<TopicPartition>, offset: (TopicPartition) -> Int64? = { _ in nil },
        _ body: (Pointer) throws -> T
    ) rethrows -> T {
        let list = rd_kafka_topic_partition_list_new(Int32(max(partitions.count, 1)))!
        defer { rd_kafka_topic_partition_list_destroy(list) }
        for partition in partitions {
            let element = rd_kafka_topic_partition_list_add(list, partition.topic, partition.partition)!
            if let value = offset(partition) { element.pointee.offset = value }
        }
        return try body(list)
    }

    /// The partitions of a list librdkafka handed us.
    static func read(_ list: Pointer?) -> [TopicPartition] {
        guard let list else { return [] }
        return (0..<Int(list.pointee.cnt)).map { index in
            let element = list.pointee.elems[index]
            return TopicPartition(topic: String(cString: element.topic), partition: element.partition)
        }
    }

    /// Each element of a list with its offset and per-element error code.
    static func readOffsets(_ list: Pointer) -> [(TopicPartition, offset: Int64, error: rd_kafka_resp_err_t)] {
        (0..<Int(list.pointee.cnt)).map { index in
            let element = list.pointee.elems[index]
            return (TopicPartition(topic: String(cString: element.topic), partition: element.partition), element.offset, element.err)
        }
    }
}
