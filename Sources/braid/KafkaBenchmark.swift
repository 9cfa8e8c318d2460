import ArgumentParser
import BraidKafka
import Foundation

/// `braid bench kafka-produce`: fire-and-forget throughput of ``KafkaProducer`` with the same
/// settings the bench script gives kcat (`linger.ms=5`, idempotent, `acks=all`), measured from
/// the first send until every message was acknowledged (shutdown flushes).
struct KafkaProduceBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kafka-produce", abstract: "Produce N messages of a given size; print msgs/s.")

    @Option(help: "bootstrap.servers of the broker.") var brokers: String
    @Option(help: "Topic to produce to (should exist).") var topic: String
    @Option(help: "Messages to produce.") var messages = 200_000
    @Option(help: "Bytes per message value.") var size = 256

    func run() async throws {
        var configuration = KafkaProducerConfiguration(brokers: brokers)
        configuration.lingerMilliseconds = 5
        configuration.idempotent = true
        configuration.flushTimeoutMilliseconds = 60_000
        let producer = try KafkaProducer(configuration: configuration)
        let value = [UInt8](repeating: UInt8(ascii: "x"), count: size)
        let started = ContinuousClock.now
        for _ in 0..<messages {
            try await producer.send(KafkaProducerMessage(topic: topic, value: value))
        }
        await producer.shutdown()
        let seconds = KafkaBenchClock.seconds(since: started)
        let counts = producer.deliveryCounts
        guard counts.delivered == messages else {
            throw ValidationError("delivered \(counts.delivered) of \(messages) messages (\(counts.failed) failed)")
        }
        print("FIGURE kafka.produce.seconds \(String(format: "%.3f", seconds))")
        print("FIGURE kafka.produce.msgs_per_s \(Int((Double(messages) / seconds).rounded()))")
    }
}

/// `braid bench kafka-consume`: ``KafkaConsumer`` in a fresh consumer group, storing every
/// message's offset as the worker does. Throughput runs from the first message to the last,
/// so the one-off group join (a few seconds on the local broker) is reported separately.
struct KafkaConsumeBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kafka-consume", abstract: "Consume N messages in a consumer group; print msgs/s.")

    @Option(help: "bootstrap.servers of the broker.") var brokers: String
    @Option(help: "Topic to consume from the beginning.") var topic: String
    @Option(help: "Messages to consume.") var messages = 200_000

    func run() async throws {
        var configuration = KafkaConsumerConfiguration(
            brokers: brokers, groupID: "braid-bench-\(ProcessInfo.processInfo.processIdentifier)", topics: [topic])
        configuration.sessionTimeoutMilliseconds = 6_000
        configuration.heartbeatIntervalMilliseconds = 300
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
            throw ValidationError("consumed \(count) of \(messages) messages")
        }
        let seconds = KafkaBenchClock.seconds(between: firstMessage, finished)
        print("FIGURE kafka.consume.join_seconds \(String(format: "%.3f", KafkaBenchClock.seconds(between: subscribed, firstMessage)))")
        print("FIGURE kafka.consume.seconds \(String(format: "%.3f", seconds))")
        print("FIGURE kafka.consume.bytes \(bytes)")
        print("FIGURE kafka.consume.msgs_per_s \(Int((Double(messages) / seconds).rounded()))")
        let withJoin = KafkaBenchClock.seconds(between: subscribed, finished)
        print("FIGURE kafka.consume.with_join.msgs_per_s \(Int((Double(messages) / withJoin).rounded()))")
    }
}

enum KafkaBenchClock {
    static func seconds(since start: ContinuousClock.Instant) -> Double {
        seconds(between: start, .now)
    }

    static func seconds(between start: ContinuousClock.Instant, _ end: ContinuousClock.Instant) -> Double {
        let elapsed = end - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
