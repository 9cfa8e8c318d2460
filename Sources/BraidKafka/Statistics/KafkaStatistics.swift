import Foundation

/// The few numbers Braid takes from librdkafka's statistics JSON (`statistics.interval.ms`);
/// see librdkafka's STATISTICS.md for the full document.
package struct KafkaStatistics: Equatable, Sendable {
    /// `msg_cnt`: messages waiting in the producer's queues.
    package var queuedMessages: Int64
    /// `txmsgs` / `rxmsgs`: messages sent to / received from brokers since start.
    package var transmittedMessages: Int64
    package var receivedMessages: Int64
    /// `tx_bytes` / `rx_bytes`: bytes sent to / received from brokers since start.
    package var transmittedBytes: Int64
    package var receivedBytes: Int64
    /// `topics.*.partitions.*.consumer_lag` of partitions this consumer fetches (lag >= 0).
    package var consumerLag: [TopicPartition: Int64]

    private struct Document: Decodable {
        struct Topic: Decodable {
            var partitions: [String: Partition]?
        }
        struct Partition: Decodable {
            var partition: Int32?
            var consumer_lag: Int64?
        }
        var msg_cnt: Int64?
        var txmsgs: Int64?
        var rxmsgs: Int64?
        var tx_bytes: Int64?
        var rx_bytes: Int64?
        var topics: [String: Topic]?
    }

    /// Parses one statistics document; `nil` when it is not the expected JSON.
    package static func parse(_ json: some DataProtocol) -> KafkaStatistics? {
        guard let document = try? JSONDecoder().decode(Document.self, from: Data(json)) else { return nil }
        var lag: [TopicPartition: Int64] = [:]
        for (topic, entry) in document.topics ?? [:] {
            for (key, partition) in entry.partitions ?? [:] {
                // Partition -1 is librdkafka's internal "unassigned" queue; lag -1 means unknown.
                guard let id = partition.partition ?? Int32(key), id >= 0,
                    let value = partition.consumer_lag, value >= 0
                else { continue }
                lag[TopicPartition(topic: topic, partition: id)] = value
            }
        }
        return KafkaStatistics(
            queuedMessages: document.msg_cnt ?? 0,
            transmittedMessages: document.txmsgs ?? 0, receivedMessages: document.rxmsgs ?? 0,
            transmittedBytes: document.tx_bytes ?? 0, receivedBytes: document.rx_bytes ?? 0,
            consumerLag: lag)
    }
}
