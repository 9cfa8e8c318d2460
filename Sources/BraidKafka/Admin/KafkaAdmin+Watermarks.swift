import CRdKafka
import Foundation

extension KafkaAdmin {
    /// High watermarks of every partition, as fetch responses report them.
    ///
    /// `rd_kafka_query_watermark_offsets` (ListOffsets) is the usual source, but the local
    /// broker (Tansu 0.6.0) answers it with the *base* offset of the last record batch + 1,
    /// which undercounts whenever producers batch (10 messages in one batch read as 1).
    /// Fetch responses carry the right value on every broker, so this fetches from one
    /// before the reported watermark until end-of-partition and reads librdkafka's cached
    /// watermarks. On a correct broker that costs one small fetch per partition.
    ///
    /// `rk` must be a consumer created with `enable.partition.eof=true` that is not
    /// subscribed; `reported` maps partitions to (low, high) from ListOffsets.
    static func fetchedHighWatermarks(
        _ rk: OpaquePointer, _ topic: String, reported: [Int32: (low: Int64, high: Int64)], _ timeout: Int32
    ) -> [Int32: Int64] {
        let partitions = reported.keys.map { TopicPartition(topic: topic, partition: $0) }
        let assigned = TopicPartitionList.with(partitions, offset: { partition in
            let (low, high) = reported[partition.partition]!
            return max(high - 1, low, 0)
        }) { rd_kafka_assign(rk, $0) }
        guard assigned == RD_KAFKA_RESP_ERR_NO_ERROR else { return [:] }
        defer { rd_kafka_assign(rk, nil) }

        var reachedEnd = Set<Int32>()
        let deadline = Date().addingTimeInterval(Double(timeout) / 1000)
        while reachedEnd.count < partitions.count, Date() < deadline {
            guard let message = rd_kafka_consumer_poll(rk, 100) else { continue }
            if message.pointee.err == RD_KAFKA_RESP_ERR__PARTITION_EOF { reachedEnd.insert(message.pointee.partition) }
            rd_kafka_message_destroy(message)
        }
        var result: [Int32: Int64] = [:]
        for partition in reachedEnd {
            var low: Int64 = 0
            var high: Int64 = 0
            if rd_kafka_get_watermark_offsets(rk, topic, partition, &low, &high) == RD_KAFKA_RESP_ERR_NO_ERROR, high >= 0 {
                result[partition] = high
            }
        }
        return result
    }
}
