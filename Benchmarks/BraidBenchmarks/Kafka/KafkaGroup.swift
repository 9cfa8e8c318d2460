import BraidConfig
import BraidHarness
import BraidKafka
import BraidWiring
import Foundation

/// Kafka throughput: BraidKafka vs kcat (same librdkafka, same broker, same run), messages of
/// 256 bytes on 6 partitions. Producing: linger.ms=5, idempotent, acks=all on both sides.
/// Consuming: kcat reads all partitions from the beginning (no group); ours joins a consumer
/// group with the workers' consumer settings and stores every offset as the worker does. The
/// ratio compares both from first to last message; whole-run figures (kcat start-up; our group
/// join, printed separately as kafka.consume.join_seconds) follow as information.
struct KafkaGroup {
    let context: BenchmarkContext

    func run() async throws {
        let messages = context.settings.kafkaMessages
        let partitions = 6
        let kcatTopic = "bench.kcat.\(context.tag)"
        let oursTopic = "bench.braid.\(context.tag)"
        try await context.broker.createTopic(kcatTopic, partitions: partitions)
        try await context.broker.createTopic(oursTopic, partitions: partitions)
        let brokers = context.broker.brokers

        // 255 characters + newline per line: kcat sends each line (without its newline) as a message.
        let payload = context.run.file("kafka-payload.txt")
        var line = Data(repeating: UInt8(ascii: "x"), count: 255)
        line.append(UInt8(ascii: "\n"))
        var lines = Data(capacity: line.count * messages)
        for _ in 0..<messages { lines.append(line) }
        try lines.write(to: payload)
        defer { try? FileManager.default.removeItem(at: payload) }

        let kcatSeconds = try await Kcat.produce(brokers: brokers, topic: kcatTopic, payload: payload, in: context.run)
        let kcatProduce = Format.pythonRound(Double(messages) / kcatSeconds)
        Report.figure("kafka.produce.kcat.msgs_per_s", kcatProduce)

        let configuration = try self.configuration(topic: oursTopic)
        var producer = configuration.kafka.producer(clientID: "braid-bench")
        // The settings kcat is given (the product's defaults too), and time to flush on a loaded machine.
        producer.lingerMilliseconds = 5
        producer.idempotent = true
        producer.flushTimeoutMilliseconds = 60_000
        let produceSeconds = try await KafkaProduceBenchmark.run(producer, topic: oursTopic, messages: messages, size: 256)
        let oursProduce = Int((Double(messages) / produceSeconds).rounded())
        Report.figure("kafka.produce.seconds", Format.fixed(produceSeconds, 3))
        Report.figure("kafka.produce.msgs_per_s", oursProduce)

        let consumed = try await Kcat.consume(brokers: brokers, topic: kcatTopic, messageLength: 255, in: context.run)
        guard consumed.count == messages else { throw BenchmarkError("kcat -C read \(consumed.count) of \(messages) messages") }
        let kcatConsumeTotal = Format.pythonRound(Double(messages) / consumed.total)
        let kcatConsume = Format.pythonRound(Double(messages) / consumed.firstToLast)
        Report.figure("kafka.consume.kcat.with_startup.msgs_per_s", kcatConsumeTotal)
        Report.figure("kafka.consume.kcat.msgs_per_s", kcatConsume)

        let consume = try await KafkaConsumeBenchmark.run(configuration.kafka.workerConsumer(clientID: "braid-bench"), messages: messages)
        let oursConsume = Int((Double(messages) / consume.seconds).rounded())
        let oursConsumeWithJoin = Int((Double(messages) / consume.withJoinSeconds).rounded())
        Report.figure("kafka.consume.join_seconds", Format.fixed(consume.joinSeconds, 3))
        Report.figure("kafka.consume.seconds", Format.fixed(consume.seconds, 3))
        Report.figure("kafka.consume.bytes", consume.bytes)
        Report.figure("kafka.consume.msgs_per_s", oursConsume)
        Report.figure("kafka.consume.with_join.msgs_per_s", oursConsumeWithJoin)

        Report.ratio("kafka.produce.vs_kcat", Format.fixed(Double(oursProduce) / Double(kcatProduce), 3))
        Report.ratio("kafka.consume.vs_kcat", Format.fixed(Double(oursConsume) / Double(kcatConsume), 3))
        // Informational: whole runs, ours including the one-off consumer-group join (~3 s on the
        // local broker, its initial rebalance delay), which kcat -C does not do.
        Report.figure("kafka.consume.with_startup.vs_kcat", Format.fixed(Double(oursConsumeWithJoin) / Double(kcatConsumeTotal), 3))
    }

    /// The product's configuration (BraidWiring builds the clients from it) pointed at this
    /// run's broker, with a consumer group of its own on `topic`.
    private func configuration(topic: String) throws -> BraidConfiguration {
        var configuration = try ConfigurationLoader.load(file: nil)
        configuration.kafka.brokers = context.broker.brokers
        configuration.kafka.requestsTopic = topic
        configuration.kafka.consumerGroup = "braid-bench-\(context.tag)"
        try configuration.validate()
        return configuration
    }
}
