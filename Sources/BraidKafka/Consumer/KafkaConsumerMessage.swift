import CRdKafka
import Foundation

/// A message received by a ``KafkaConsumer``; its bytes are copied out of librdkafka.
public struct KafkaConsumerMessage: Sendable {
    public let topic: String
    public let partition: Int32
    public let offset: Int64
    public let key: [UInt8]?
    public let value: [UInt8]
    public let headers: [KafkaHeader]
    /// Which assignment of the partition handed this message out; a store after the
    /// partition was revoked must not count against the next assignment's work.
    var generation = 0

    package init(topic: String, partition: Int32, offset: Int64, key: [UInt8]?, value: [UInt8], headers: [KafkaHeader] = []) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.key = key
        self.value = value
        self.headers = headers
    }

    public var topicPartition: TopicPartition { TopicPartition(topic: topic, partition: partition) }

    /// The key as UTF-8 text, if there is one.
    public var keyString: String? { key.map { String(decoding: $0, as: UTF8.self) } }
    /// The value as UTF-8 text.
    public var valueString: String { String(decoding: value, as: UTF8.self) }

    /// The first header of that name.
    public func header(_ name: String) -> [UInt8]? {
        headers.first { $0.name == name }?.value
    }
}

extension KafkaConsumerMessage {
    /// Copies a fetched message (which must carry no error) out of librdkafka.
    init(copying message: UnsafePointer<rd_kafka_message_t>, topicNames: TopicNames) {
        let raw = message.pointee
        var headers: [KafkaHeader] = []
        var list: OpaquePointer?
        if rd_kafka_message_headers(message, &list) == RD_KAFKA_RESP_ERR_NO_ERROR, let list {
            let count = rd_kafka_header_cnt(list)
            headers.reserveCapacity(count)
            for index in 0..<count {
                var name: UnsafePointer<CChar>?
                var value: UnsafeRawPointer?
                var size = 0
                guard rd_kafka_header_get_all(list, index, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR, let name else { continue }
                let bytes = value.map { Array(UnsafeRawBufferPointer(start: $0, count: size)) } ?? []
                headers.append(KafkaHeader(name: String(cString: name), value: bytes))
            }
        }
        self.init(
            topic: raw.rkt.map { topicNames.name(of: $0) } ?? "",
            partition: raw.partition,
            offset: raw.offset,
            key: raw.key.map { Array(UnsafeRawBufferPointer(start: $0, count: raw.key_len)) },
            value: raw.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: raw.len)) } ?? [],
            headers: headers)
    }
}

/// Reuses one `String` per topic instead of decoding (and, past 15 bytes, allocating) the
/// topic name of every fetched message. Poll thread only.
final class TopicNames {
    private var last: (bytes: [CChar], name: String) = ([0], "")

    func name(of topic: OpaquePointer) -> String {
        let cName = rd_kafka_topic_name(topic)!
        if strcmp(cName, last.bytes) != 0 {
            let name = String(cString: cName)
            last = (Array(name.utf8CString), name)
        }
        return last.name
    }
}

/// A change of the partitions this consumer owns.
public enum KafkaRebalanceEvent: Sendable, Equatable {
    /// These partitions were assigned; messages of them follow.
    case assigned([TopicPartition])
    /// These partitions are being taken away. Messages of them still buffered were dropped and
    /// ``KafkaConsumer/isCurrent(_:)`` is false for handed-out ones, whose work should finish
    /// (``KafkaConsumer/storeOffset(_:)``) or be given up (``KafkaConsumer/abandon(_:)``) now:
    /// once all are settled (or the revocation timeout passed), each partition's contiguous
    /// finished prefix is committed and the partitions are released.
    case revoked([TopicPartition])
}
