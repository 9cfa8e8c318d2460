import BraidKafka
import BraidTestSupport
import Testing

/// librdkafka's statistics reach the parser (and from there the metrics) when configured.
@Suite("Kafka statistics", .integration)
struct StatisticsTests {
    @Test func producerAndConsumerStatisticsCountTheirMessages() async throws {
        let topic = try await KafkaTest.freshTopic("stats", partitions: 1)
        var producerConfiguration = KafkaProducerConfiguration(brokers: try KafkaTest.brokers())
        producerConfiguration.statisticsIntervalMilliseconds = 100
        let producer = try KafkaProducer(configuration: producerConfiguration)
        for index in 0..<5 {
            try await producer.sendAndAwait(KafkaProducerMessage(topic: topic, key: nil, value: "\(index)"))
        }
        try await eventually("producer statistics counting 5 sent messages", within: .seconds(10)) {
            (producer.lastStatistics?.transmittedMessages ?? 0) >= 5
        }
        await producer.shutdown()

        var consumerConfiguration = try KafkaTest.consumerConfiguration(topic: topic, group: TestEnvironment.uniqueName("stats"))
        consumerConfiguration.statisticsIntervalMilliseconds = 100
        let consumer = try KafkaConsumer(configuration: consumerConfiguration)
        try await KafkaTest.within(30, "consuming 5 messages") {
            var count = 0
            for try await message in consumer.messages {
                try consumer.storeOffset(message)
                count += 1
                if count == 5 { break }
            }
        }
        try await eventually("consumer statistics counting 5 received messages and the partition's lag", within: .seconds(10)) {
            guard let stats = consumer.lastStatistics else { return false }
            return stats.receivedMessages >= 5 && stats.consumerLag[TopicPartition(topic: topic, partition: 0)] == 0
        }
        await consumer.close()
    }
}
