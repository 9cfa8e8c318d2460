import BraidKafka
import BraidTestSupport
import Logging
import ServiceLifecycle
import Testing

/// Producer and consumer as ServiceLifecycle services: graceful shutdown ends the message
/// sequence, commits what was stored and flushes what was sent.
@Suite("Kafka services", .integration)
struct ServiceLifecycleTests {
    @Test func gracefulShutdownEndsTheSequenceAndCommitsStoredOffsets() async throws {
        let topic = try await KafkaTest.freshTopic("service", partitions: 2)
        let group = TestEnvironment.uniqueName("service")
        let processed = 7
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(brokers: try KafkaTest.brokers()))
        var configuration = try KafkaTest.consumerConfiguration(topic: topic, group: group)
        // The message taken but never stored holds up the close's revocation this long.
        configuration.revocationTimeoutMilliseconds = 1_000
        let consumer = try KafkaConsumer(configuration: configuration)
        let services = ServiceGroup(
            configuration: ServiceGroupConfiguration(services: [producer, consumer], logger: Logger(label: "test.services")))

        let running = Task { try await services.run() }
        for index in 0..<20 {
            try await producer.send(KafkaProducerMessage(topic: topic, partition: Int32(index % 2), key: nil, value: "\(index)"))
        }
        try await KafkaTest.within(30, "processing \(processed) messages, then shutdown") {
            var count = 0
            for try await message in consumer.messages {
                guard count < processed else { break }  // taken after shutdown began: never stored
                try consumer.storeOffset(message)
                count += 1
                if count == processed { await services.triggerGracefulShutdown() }
            }
        }
        try await KafkaTest.within(30, "the services to stop") { try await running.value }

        // The group has returned, so the consumer is closed: its sequence has ended.
        let next = try await KafkaTest.within(10, "the ended sequence to answer") {
            var afterShutdown = consumer.messages.makeAsyncIterator()
            return try await afterShutdown.next()?.offset
        }
        #expect(next == nil)
        // The producer flushed on shutdown, the consumer committed exactly what was stored.
        #expect(producer.deliveryCounts == KafkaDeliveryCounts(delivered: 20, failed: 0))
        let lag = try await KafkaAdmin(brokers: try KafkaTest.brokers()).lag(group: group, topic: topic)
        #expect(lag.map { $0.committed ?? 0 }.reduce(0, +) == Int64(processed))
        #expect(lag.map(\.lag).reduce(0, +) == Int64(20 - processed))
    }

    @Test func pausedPartitionsAreNotFetchedUntilResumed() async throws {
        let topic = try await KafkaTest.freshTopic("pause", partitions: 2)
        let consumer = try KafkaConsumer(
            configuration: try KafkaTest.consumerConfiguration(topic: topic, group: TestEnvironment.uniqueName("pause")))
        try await eventually("assignment", within: .seconds(30)) { consumer.assignment.count == 2 }
        let paused = TopicPartition(topic: topic, partition: 0)
        consumer.pause([paused])

        // Partition 0's messages are acknowledged before partition 1's are even sent.
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(brokers: try KafkaTest.brokers()))
        for index in 0..<10 {
            try await producer.sendAndAwait(KafkaProducerMessage(topic: topic, partition: 0, key: nil, value: "p0-\(index)"))
        }
        for index in 0..<10 {
            try await producer.sendAndAwait(KafkaProducerMessage(topic: topic, partition: 1, key: nil, value: "p1-\(index)"))
        }
        await producer.shutdown()

        let whilePaused = try await KafkaTest.within(30, "partition 1's messages") {
            var values: [String] = []
            for try await message in consumer.messages {
                values.append(message.valueString)
                try consumer.storeOffset(message)
                if values.filter({ $0.hasPrefix("p1-") }).count == 10 { break }
            }
            return values
        }
        #expect(!whilePaused.contains { $0.hasPrefix("p0-") })

        consumer.resume([paused])
        let afterResume = try await KafkaTest.within(30, "partition 0's messages after resume") {
            var values: [String] = []
            for try await message in consumer.messages {
                values.append(message.valueString)
                try consumer.storeOffset(message)
                if values.count == 10 { break }
            }
            return values
        }
        await consumer.close()
        #expect(afterResume == (0..<10).map { "p0-\($0)" })
    }
}
