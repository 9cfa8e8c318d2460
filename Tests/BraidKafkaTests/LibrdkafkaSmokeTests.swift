import BraidCore
import BraidTestSupport
import CRdKafka
import Foundation
import Testing

/// The lowest layer works end to end: this binary loads a librdkafka that can talk to the
/// broker, produces a message and consumes it back through a consumer group.
@Suite("librdkafka smoke", .integration)
struct LibrdkafkaSmokeTests {
    struct KafkaFailure: Error, CustomStringConvertible { let description: String }

    @Test func producesAndConsumesThroughTheBroker() async throws {
        let brokers = try TestEnvironment.kafkaBrokers()
        let payload = "smoke-\(UUID().uuidString)"
        let group = TestEnvironment.uniqueName("smoke")
        let topic = "braid.events"

        try await runOffPool { try Self.produce(payload, to: topic, brokers: brokers) }
        let received = try await runOffPool {
            try Self.consume(until: payload, from: topic, group: group, brokers: brokers, timeout: 30)
        }
        #expect(received == payload)
    }

    static func configuration(_ pairs: [(String, String)]) throws -> OpaquePointer {
        let conf = rd_kafka_conf_new()!
        var errstr = [CChar](repeating: 0, count: 512)
        for (key, value) in pairs where rd_kafka_conf_set(conf, key, value, &errstr, errstr.count) != RD_KAFKA_CONF_OK {
            rd_kafka_conf_destroy(conf)
            throw KafkaFailure(description: "\(key): \(String(cString: errstr))")
        }
        return conf
    }

    static func produce(_ payload: String, to topic: String, brokers: String) throws {
        let conf = try configuration([("bootstrap.servers", brokers), ("message.timeout.ms", "20000")])
        var errstr = [CChar](repeating: 0, count: 512)
        guard let producer = rd_kafka_new(RD_KAFKA_PRODUCER, conf, &errstr, errstr.count) else {
            throw KafkaFailure(description: "rd_kafka_new: \(String(cString: errstr))")
        }
        defer { rd_kafka_destroy(producer) }
        let handle = rd_kafka_topic_new(producer, topic, nil)
        defer { rd_kafka_topic_destroy(handle) }
        var bytes = Array(payload.utf8)
        let rc = rd_kafka_produce(handle, RD_KAFKA_PARTITION_UA, RD_KAFKA_MSG_F_COPY, &bytes, bytes.count, nil, 0, nil)
        guard rc == 0 else { throw KafkaFailure(description: "produce: \(String(cString: rd_kafka_err2str(rd_kafka_last_error())))") }
        let flushed = rd_kafka_flush(producer, 20_000)
        guard flushed == RD_KAFKA_RESP_ERR_NO_ERROR, rd_kafka_outq_len(producer) == 0 else {
            throw KafkaFailure(description: "flush: \(String(cString: rd_kafka_err2str(flushed)))")
        }
    }

    static func consume(until payload: String, from topic: String, group: String, brokers: String, timeout: Double) throws -> String? {
        let conf = try configuration([
            ("bootstrap.servers", brokers), ("group.id", group), ("auto.offset.reset", "earliest"),
            ("session.timeout.ms", "6000"), ("heartbeat.interval.ms", "300"),
        ])
        var errstr = [CChar](repeating: 0, count: 512)
        guard let consumer = rd_kafka_new(RD_KAFKA_CONSUMER, conf, &errstr, errstr.count) else {
            throw KafkaFailure(description: "rd_kafka_new: \(String(cString: errstr))")
        }
        defer {
            rd_kafka_consumer_close(consumer)
            rd_kafka_destroy(consumer)
        }
        rd_kafka_poll_set_consumer(consumer)
        let topics = rd_kafka_topic_partition_list_new(1)
        defer { rd_kafka_topic_partition_list_destroy(topics) }
        rd_kafka_topic_partition_list_add(topics, topic, RD_KAFKA_PARTITION_UA)
        let subscribed = rd_kafka_subscribe(consumer, topics)
        guard subscribed == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaFailure(description: "subscribe: \(String(cString: rd_kafka_err2str(subscribed)))")
        }
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            guard let message = rd_kafka_consumer_poll(consumer, 200) else { continue }
            defer { rd_kafka_message_destroy(message) }
            guard message.pointee.err == RD_KAFKA_RESP_ERR_NO_ERROR, let bytes = message.pointee.payload else { continue }
            let text = String(decoding: UnsafeRawBufferPointer(start: bytes, count: message.pointee.len), as: UTF8.self)
            if text == payload { return text }
        }
        throw KafkaFailure(description: "did not receive the produced message within \(timeout)s")
    }
}
