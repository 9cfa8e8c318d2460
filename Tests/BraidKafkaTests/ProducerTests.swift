import BraidKafka
import BraidTestSupport
import Testing

/// The producer against the real broker: acknowledgements, keys and headers, flush on shutdown.
@Suite("Kafka producer", .integration)
struct ProducerTests {
    @Test func sendAndAwaitReturnsPartitionAndOffsetAndKeyAndHeadersRoundTrip() async throws {
        let topic = try await KafkaTest.freshTopic("roundtrip")
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(brokers: try KafkaTest.brokers()))
        let headers = [KafkaHeader(name: "reason", value: "schema mismatch"), KafkaHeader(name: "raw", value: [0, 255, 7])]
        let first = try await producer.sendAndAwait(
            KafkaProducerMessage(topic: topic, partition: 2, key: "key-1", value: "value-1", headers: headers))
        let second = try await producer.sendAndAwait(KafkaProducerMessage(topic: topic, partition: 2, key: nil, value: "value-2"))
        let hashed = try await producer.sendAndAwait(KafkaProducerMessage(topic: topic, key: "key-3", value: "value-3"))
        await producer.shutdown()

        #expect(first.topic == topic)
        #expect(first.partition == 2)
        #expect(first.offset == 0)
        #expect(first.error == nil)
        #expect(second.partition == 2 && second.offset == 1)
        // Keyed without a partition: the partitioner picks one; it is that partition's next offset.
        #expect((0..<6).contains(hashed.partition))
        #expect(hashed.offset == (hashed.partition == 2 ? 2 : 0))

        let consumer = try KafkaConsumer(
            configuration: try KafkaTest.consumerConfiguration(topic: topic, group: TestEnvironment.uniqueName("roundtrip")))
        let received = try await KafkaTest.within(30, "consuming 3 messages") {
            var received: [KafkaConsumerMessage] = []
            for try await message in consumer.messages {
                received.append(message)
                try consumer.storeOffset(message)
                if received.count == 3 { break }
            }
            return received
        }
        await consumer.close()

        let withHeaders = try #require(received.first { $0.valueString == "value-1" })
        #expect(withHeaders.keyString == "key-1")
        #expect(withHeaders.partition == 2 && withHeaders.offset == 0)
        #expect(withHeaders.headers == headers)
        #expect(withHeaders.header("raw") == [0, 255, 7])
        let keyless = try #require(received.first { $0.valueString == "value-2" })
        #expect(keyless.key == nil)
        #expect(keyless.headers.isEmpty)
        #expect(received.first { $0.valueString == "value-3" }?.partition == hashed.partition)
    }

    @Test func shutdownFlushesFireAndForgetMessagesAndReportsThem() async throws {
        let topic = try await KafkaTest.freshTopic("flush")
        let reported = Ledger()
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(brokers: try KafkaTest.brokers())) { batch in
            for report in batch where report.error == nil { reported.processed("\(report.partition)/\(report.offset)", by: 0) }
        }
        for index in 0..<500 {
            try await producer.send(KafkaProducerMessage(topic: topic, key: "k\(index)", value: "\(index)"))
        }
        await producer.shutdown()

        #expect(producer.deliveryCounts == KafkaDeliveryCounts(delivered: 500, failed: 0))
        #expect(reported.distinctCount == 500)
        await #expect(throws: KafkaError.self) {
            try await producer.send(KafkaProducerMessage(topic: topic, key: nil, value: "after shutdown"))
        }
    }
}
