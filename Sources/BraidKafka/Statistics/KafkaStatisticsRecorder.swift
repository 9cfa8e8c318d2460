import Foundation
import Metrics
import Synchronization

/// The Kafka client's metrics, by Prometheus name.
public enum KafkaMetricName: String, CaseIterable, Sendable {
    case queuedMessages = "braid_kafka_queued_messages"
    case transmittedMessages = "braid_kafka_transmitted_messages_total"
    case receivedMessages = "braid_kafka_received_messages_total"
    case transmittedBytes = "braid_kafka_transmitted_bytes_total"
    case receivedBytes = "braid_kafka_received_bytes_total"
    case consumerLag = "braid_kafka_consumer_lag"
}

/// Turns librdkafka statistics into swift-metrics: gauges for queue depth and consumer lag,
/// counters (fed with the growth since the previous document) for messages and bytes.
final class KafkaStatisticsRecorder: Sendable {
    private let client: String
    private let queued: Gauge
    private let transmittedMessages: Counter
    private let receivedMessages: Counter
    private let transmittedBytes: Counter
    private let receivedBytes: Counter
    private let previous = Mutex<KafkaStatistics?>(nil)

    init(client: String) {
        let dimensions = [("client", client)]
        self.client = client
        queued = Gauge(label: KafkaMetricName.queuedMessages.rawValue, dimensions: dimensions)
        transmittedMessages = Counter(label: KafkaMetricName.transmittedMessages.rawValue, dimensions: dimensions)
        receivedMessages = Counter(label: KafkaMetricName.receivedMessages.rawValue, dimensions: dimensions)
        transmittedBytes = Counter(label: KafkaMetricName.transmittedBytes.rawValue, dimensions: dimensions)
        receivedBytes = Counter(label: KafkaMetricName.receivedBytes.rawValue, dimensions: dimensions)
    }

    /// The most recent statistics document, parsed.
    var latest: KafkaStatistics? { previous.withLock { $0 } }

    /// Records one statistics JSON document (called on librdkafka's poll thread).
    func record(_ json: UnsafeRawBufferPointer) {
        guard let stats = KafkaStatistics.parse(json) else { return }
        let last = previous.withLock { previous in
            defer { previous = stats }
            return previous
        }
        queued.record(stats.queuedMessages)
        transmittedMessages.increment(by: Self.growth(stats.transmittedMessages, last?.transmittedMessages))
        receivedMessages.increment(by: Self.growth(stats.receivedMessages, last?.receivedMessages))
        transmittedBytes.increment(by: Self.growth(stats.transmittedBytes, last?.transmittedBytes))
        receivedBytes.increment(by: Self.growth(stats.receivedBytes, last?.receivedBytes))
        for (partition, lag) in stats.consumerLag {
            Gauge(
                label: KafkaMetricName.consumerLag.rawValue,
                dimensions: [("client", client), ("topic", partition.topic), ("partition", String(partition.partition))]
            ).record(lag)
        }
    }

    /// Totals only grow; a smaller value means a new client, so count it from zero.
    static func growth(_ current: Int64, _ previous: Int64?) -> Int64 {
        guard let previous, current >= previous else { return max(current, 0) }
        return current - previous
    }
}
