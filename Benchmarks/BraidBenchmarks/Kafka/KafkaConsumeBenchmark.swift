import BraidKafka

/// ``KafkaConsumer`` in a fresh consumer group, storing every message's offset as the worker
/// does. Throughput runs from the first message to the last, so the one-off group join (a few
/// seconds on the local broker) is reported separately.
enum KafkaConsumeBenchmark {
    struct Result {
        var joinSeconds: Double
        var seconds: Double
        var withJoinSeconds: Double
        var bytes: Int
    }

    static func run(_ configuration: KafkaConsumerConfiguration, messages: Int) async throws -> Result {
        let consumer = try KafkaConsumer(configuration: configuration)
        let subscribed = ContinuousClock.now
        var firstMessage: ContinuousClock.Instant?
        var count = 0
        var bytes = 0
        for try await message in consumer.messages {
            if firstMessage == nil { firstMessage = ContinuousClock.now }
            bytes &+= message.value.count
            try consumer.storeOffset(message)
            count += 1
            if count == messages { break }
        }
        let finished = ContinuousClock.now
        await consumer.close()
        guard count == messages, let firstMessage else {
            throw BenchmarkError("consumed \(count) of \(messages) messages")
        }
        return Result(
            joinSeconds: Format.seconds(firstMessage - subscribed), seconds: Format.seconds(finished - firstMessage),
            withJoinSeconds: Format.seconds(finished - subscribed), bytes: bytes)
    }
}
