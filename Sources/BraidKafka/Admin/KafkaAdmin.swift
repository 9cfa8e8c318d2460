import CRdKafka
import Logging

/// Topic administration and consumer-group lag. Every call blocks inside librdkafka, so each
/// runs on ``BlockingCalls``, never on the cooperative pool.
public final class KafkaAdmin: Sendable {
    let brokers: String
    let properties: [String: String]
    let logger: Logger
    private let handle: RDKafkaHandle
    /// Per-request timeout, in milliseconds.
    public let timeoutMilliseconds: Int32

    /// - Parameter properties: extra librdkafka properties (e.g. security settings).
    public init(
        brokers: String, properties: [String: String] = [:], timeoutMilliseconds: Int32 = 10_000,
        logger: Logger = Logger(label: "braid.kafka.admin")
    ) throws {
        self.brokers = brokers
        self.properties = properties
        self.logger = logger
        self.timeoutMilliseconds = timeoutMilliseconds
        var all = properties
        all["bootstrap.servers"] = brokers
        handle = try RDKafkaHandle(.producer, properties: all, context: CallbackContext(logger: logger, statistics: nil))
    }

    /// Creates a topic; one that exists already counts as success.
    /// - Returns: `true` if this call created it, `false` if it existed.
    @discardableResult
    public func createTopic(_ name: String, partitions: Int32, replicationFactor: Int32 = 1) async throws -> Bool {
        let (handle, timeout) = (self.handle, timeoutMilliseconds)
        return try await BlockingCalls.run {
            try handle.withPointer { rk in try Self.createTopic(rk, name, partitions, replicationFactor, timeout) }
        }
    }

    /// Number of partitions of a topic, from the cluster's metadata.
    public func partitionCount(of topic: String) async throws -> Int {
        let (handle, timeout) = (self.handle, timeoutMilliseconds)
        return try await BlockingCalls.run {
            try handle.withPointer { rk in try Self.partitionCount(rk, topic, timeout) }
        }
    }

    /// Lag of a consumer group on every partition of a topic: committed offsets read with a
    /// short-lived consumer of that group (which never joins it), against high watermarks.
    public func lag(group: String, topic: String) async throws -> [KafkaPartitionLag] {
        let count = try await partitionCount(of: topic)
        var consumerProperties = properties
        consumerProperties.merge([
            "bootstrap.servers": brokers, "group.id": group, "enable.auto.commit": "false",
            "enable.auto.offset.store": "false", "enable.partition.eof": "true",
        ]) { _, new in new }
        let consumer = try RDKafkaHandle(
            .consumer, properties: consumerProperties, context: CallbackContext(logger: logger, statistics: nil))
        let timeout = timeoutMilliseconds
        return try await BlockingCalls.run {
            defer { consumer.destroy(flags: Int32(RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE)) }
            return try consumer.withPointer { rk in try Self.lag(rk, topic, partitions: count, timeout) }
        }
    }

    private static func createTopic(_ rk: OpaquePointer, _ name: String, _ partitions: Int32, _ replication: Int32, _ timeout: Int32) throws -> Bool {
        var errstr = [CChar](repeating: 0, count: 512)
        guard let newTopic = rd_kafka_NewTopic_new(name, partitions, replication, &errstr, errstr.count) else {
            throw KafkaError(.admin, "create topic \(name): \(String(errorBuffer: errstr))")
        }
        defer { rd_kafka_NewTopic_destroy(newTopic) }
        let queue = rd_kafka_queue_new(rk)
        defer { rd_kafka_queue_destroy(queue) }
        let options = rd_kafka_AdminOptions_new(rk, RD_KAFKA_ADMIN_OP_CREATETOPICS)
        defer { rd_kafka_AdminOptions_destroy(options) }
        _ = rd_kafka_AdminOptions_set_request_timeout(options, timeout, &errstr, errstr.count)
        var topics: [OpaquePointer?] = [newTopic]
        rd_kafka_CreateTopics(rk, &topics, 1, options, queue)
        guard let event = rd_kafka_queue_poll(queue, timeout + 1_000) else {
            throw KafkaError(.timedOut, "create topic \(name): no answer within \(timeout) ms", isRetriable: true)
        }
        defer { rd_kafka_event_destroy(event) }
        let eventError = rd_kafka_event_error(event)
        if eventError != RD_KAFKA_RESP_ERR_NO_ERROR {
            throw KafkaError.librdkafka(.admin, eventError, context: "create topic \(name)")
        }
        var count = 0
        guard let result = rd_kafka_event_CreateTopics_result(event),
            let results = rd_kafka_CreateTopics_result_topics(result, &count), count == 1
        else { throw KafkaError(.admin, "create topic \(name): malformed result") }
        let error = rd_kafka_topic_result_error(results[0])
        switch error {
        case RD_KAFKA_RESP_ERR_NO_ERROR: return true
        case RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS: return false
        default:
            let message = rd_kafka_topic_result_error_string(results[0]).map { String(cString: $0) } ?? ""
            throw KafkaError.librdkafka(.admin, error, context: "create topic \(name) (\(message))")
        }
    }

    private static func partitionCount(_ rk: OpaquePointer, _ topic: String, _ timeout: Int32) throws -> Int {
        let rkt = rd_kafka_topic_new(rk, topic, nil)
        defer { rd_kafka_topic_destroy(rkt) }
        var metadata: UnsafePointer<rd_kafka_metadata>?
        let result = rd_kafka_metadata(rk, 0, rkt, &metadata, timeout)
        defer { if let metadata { rd_kafka_metadata_destroy(metadata) } }
        guard result == RD_KAFKA_RESP_ERR_NO_ERROR, let metadata else {
            throw KafkaError.librdkafka(.admin, result, context: "metadata of \(topic)")
        }
        guard metadata.pointee.topic_cnt == 1 else { throw KafkaError(.admin, "metadata of \(topic): topic missing") }
        let entry = metadata.pointee.topics[0]
        guard entry.err == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaError.librdkafka(.admin, entry.err, context: "metadata of \(topic)")
        }
        return Int(entry.partition_cnt)
    }

    private static func lag(_ rk: OpaquePointer, _ topic: String, partitions: Int, _ timeout: Int32) throws -> [KafkaPartitionLag] {
        let all = (0..<Int32(partitions)).map { TopicPartition(topic: topic, partition: $0) }
        let committed = try TopicPartitionList.with(all) { list in
            let result = rd_kafka_committed(rk, list, timeout)
            guard result == RD_KAFKA_RESP_ERR_NO_ERROR else {
                throw KafkaError.librdkafka(.admin, result, context: "committed offsets of \(topic)")
            }
            return TopicPartitionList.readOffsets(list)
        }
        var reported: [Int32: (low: Int64, high: Int64)] = [:]
        for (partition, _, _) in committed {
            var low: Int64 = 0
            var high: Int64 = 0
            let result = rd_kafka_query_watermark_offsets(rk, topic, partition.partition, &low, &high, timeout)
            guard result == RD_KAFKA_RESP_ERR_NO_ERROR else {
                throw KafkaError.librdkafka(.admin, result, context: "watermarks of \(partition)")
            }
            reported[partition.partition] = (low, high)
        }
        let fetched = fetchedHighWatermarks(rk, topic, reported: reported, timeout)
        return committed.map { partition, offset, _ in
            let (low, high) = reported[partition.partition]!
            return KafkaPartitionLag(
                topic: topic, partition: partition.partition, committed: offset >= 0 ? offset : nil,
                lowWatermark: low, highWatermark: max(high, fetched[partition.partition] ?? high))
        }
    }
}
