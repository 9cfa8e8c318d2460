import BraidKafka
import BraidTestSupport
import Testing

/// Topic creation and group lag against the real broker.
@Suite("Kafka admin", .integration)
struct AdminTests {
    @Test func creatingATopicTwiceIsANoOpTheSecondTime() async throws {
        let admin = try KafkaAdmin(brokers: try KafkaTest.brokers())
        let topic = TestEnvironment.uniqueName("braid.test.create")
        #expect(try await admin.createTopic(topic, partitions: 4) == true)
        #expect(try await admin.createTopic(topic, partitions: 4) == false)
        #expect(try await admin.partitionCount(of: topic) == 4)
    }

    @Test func lagIsProducedMinusCommitted() async throws {
        let topic = try await KafkaTest.freshTopic("lag", partitions: 3)
        let group = TestEnvironment.uniqueName("lag")
        let produced = 30
        let consumed = 12
        try await KafkaTest.produce(produced, to: topic, partitions: 3)

        let admin = try KafkaAdmin(brokers: try KafkaTest.brokers())
        let before = try await admin.lag(group: group, topic: topic)
        #expect(before.map(\.committed) == [nil, nil, nil])
        #expect(before.map(\.lag).reduce(0, +) == Int64(produced))

        let consumer = try KafkaConsumer(configuration: try KafkaTest.consumerConfiguration(topic: topic, group: group))
        try await KafkaTest.within(30, "consuming \(consumed) messages") {
            var count = 0
            for try await message in consumer.messages {
                try consumer.storeOffset(message)
                count += 1
                if count == consumed { break }
            }
        }
        try await consumer.commit()
        let after = try await admin.lag(group: group, topic: topic)
        await consumer.close()

        #expect(after.count == 3)
        #expect(after.map(\.highWatermark) == [10, 10, 10])
        #expect(after.map(\.lag).reduce(0, +) == Int64(produced - consumed))
        for partition in after {
            #expect(partition.lag == partition.highWatermark - (partition.committed ?? 0))
        }
    }
}
