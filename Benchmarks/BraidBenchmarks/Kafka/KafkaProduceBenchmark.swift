import BraidKafka

/// Fire-and-forget throughput of ``KafkaProducer``, measured from the first send until every
/// message was acknowledged (shutdown flushes).
enum KafkaProduceBenchmark {
    static func run(_ configuration: KafkaProducerConfiguration, topic: String, messages: Int, size: Int) async throws -> Double {
        let producer = try KafkaProducer(configuration: configuration)
        let value = [UInt8](repeating: UInt8(ascii: "x"), count: size)
        let started = ContinuousClock.now
        for _ in 0..<messages {
            try await producer.send(KafkaProducerMessage(topic: topic, value: value))
        }
        await producer.shutdown()
        let seconds = Format.seconds(ContinuousClock.now - started)
        let counts = producer.deliveryCounts
        guard counts.delivered == messages else {
            throw BenchmarkError("delivered \(counts.delivered) of \(messages) messages (\(counts.failed) failed)")
        }
        return seconds
    }
}
