import BraidTestSupport
import BraidContracts
import BraidCore
import BraidKafka
import BraidPrecompute
import BraidRedis
import BraidWorker
import Logging
import ServiceLifecycle
import Synchronization
import Testing

/// The worker's retry path — backoff between attempts, the dead-letter topic once attempts
/// are used up or at once for permanent failures, pausing instead while a dependency is down —
/// with the real ``PrecomputeWorker``, consumer and dead-letter producer over librdkafka's
/// mock cluster, and a scripted ``MessageProcessor`` (the worker's seam for what a message
/// does). Redis holds only the worker's best-effort dead-letter markers; it is left
/// unreachable here, which the worker must (and does) shrug off.
@Suite("Worker retries over librdkafka's mock cluster", .timeLimit(.minutes(5)))
struct WorkerRetryTests {
    /// Fails each message as its script says, recording when each attempt ran. Its probe of
    /// the search source answers while ``down`` is off.
    final class ScriptedProcessor: MessageProcessor {
        typealias Script = @Sendable (_ value: String, _ attempt: Int, _ down: Bool) -> ProcessingFailure?
        private let script: Script
        private let attempts = Mutex<[String: [ContinuousClock.Instant]]>([:])
        private let succeeded = Mutex<Set<String>>([])
        private let probes = Atomic<Int>(0)
        let down = Atomic<Bool>(false)

        init(_ script: @escaping Script) {
            self.script = script
        }

        func process(_ value: [UInt8]) async throws(ProcessingFailure) -> (kind: String, outcome: MaterializeOutcome) {
            let text = String(decoding: value, as: UTF8.self)
            let attempt = attempts.withLock { attempts in
                attempts[text, default: []].append(.now)
                return attempts[text, default: []].count
            }
            if let failure = script(text, attempt, down.load(ordering: .relaxed)) { throw failure }
            succeeded.withLock { _ = $0.insert(text) }
            return ("test", .written(documents: 1))
        }

        func probe(_ dependency: ProcessingFailure.Dependency) async -> Bool? {
            guard dependency == .searchSource else { return nil }
            probes.add(1, ordering: .relaxed)
            return !down.load(ordering: .relaxed)
        }

        func attempts(of value: String) -> [ContinuousClock.Instant] { attempts.withLock { $0[value] ?? [] } }
        var totalAttempts: Int { attempts.withLock { $0.values.map(\.count).reduce(0, +) } }
        var successes: Set<String> { succeeded.withLock { $0 } }
        var probeCount: Int { probes.load(ordering: .relaxed) }
    }

    static var quiet: Logger {
        var logger = Logger(label: "braid.worker.test")
        logger.logLevel = .critical
        return logger
    }

    /// A worker on `requests`, dead-lettering to `dlq`.
    static func worker(_ cluster: KafkaMockCluster, processor: ScriptedProcessor, configuration: PrecomputeWorker.Configuration) throws
        -> (PrecomputeWorker, KafkaProducer)
    {
        let producer = try KafkaProducer(configuration: cluster.producerConfiguration(), logger: quiet)
        // Never run, so every command fails at once as unavailable.
        let unreachable = RedisClient(configuration: RedisConfiguration(host: "127.0.0.1", port: 1))
        let worker = try PrecomputeWorker(
            consumer: cluster.consumerConfiguration(topic: "requests", group: "workers", session: .seconds(30)),
            deadLetters: DeadLetterPublisher(producer: producer, topic: "dlq"), processor: processor,
            store: PrecomputeStore(redis: unreachable, keys: CacheKeys(prefix: "test")), configuration: configuration, logger: quiet)
        return (worker, producer)
    }

    /// Runs a worker until `body` returns (or fails), then shuts it down gracefully:
    /// finishing, committing, leaving the group.
    static func withWorker(
        _ cluster: KafkaMockCluster, processor: ScriptedProcessor, configuration: PrecomputeWorker.Configuration,
        _ body: () async throws -> Void
    ) async throws {
        let (worker, producer) = try Self.worker(cluster, processor: processor, configuration: configuration)
        let services = ServiceGroup(configuration: ServiceGroupConfiguration(services: [producer, worker], logger: quiet))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await services.run() }
            var failure: (any Error)?
            do {
                try await body()
            } catch {
                failure = error
            }
            await services.triggerGracefulShutdown()
            try await group.waitForAll()
            if let failure { throw failure }
        }
    }

    static func setUp(_ values: [String]) async throws -> KafkaMockCluster {
        let cluster = try KafkaMockCluster(initialRebalanceDelay: .milliseconds(50))
        try cluster.createTopic("requests", partitions: 2)
        try cluster.createTopic("dlq", partitions: 1)
        let producer = try KafkaProducer(configuration: cluster.producerConfiguration(), logger: quiet)
        for (index, value) in values.enumerated() {
            try await producer.send(KafkaProducerMessage(topic: "requests", partition: Int32(index % 2), key: value, value: value))
        }
        await producer.shutdown()
        try #require(producer.deliveryCounts.delivered == values.count)
        return cluster
    }

    /// The dead letters, read back from the topic with their headers.
    static func deadLetters(_ cluster: KafkaMockCluster, expecting count: Int) async throws -> [KafkaConsumerMessage] {
        guard count > 0 else {
            let lag = try await KafkaAdmin(brokers: cluster.brokers, timeoutMilliseconds: 5_000, logger: quiet).lag(group: "reader", topic: "dlq")
            #expect(lag.map(\.highWatermark).reduce(0, +) == 0, "nothing dead-lettered")
            return []
        }
        let reader = try KafkaConsumer(configuration: cluster.consumerConfiguration(topic: "dlq", group: "dlq-reader", session: .seconds(30)), logger: quiet)
        let letters = Mutex<[KafkaConsumerMessage]>([])
        let reading = Task {
            for try await message in reader.messages {
                try reader.storeOffset(message)
                letters.withLock { $0.append(message) }
                if letters.withLock({ $0.count }) == count { break }
            }
        }
        try await eventually("\(count) dead letter(s)") { letters.withLock { $0.count } == count }
        reading.cancel()
        await reader.close()
        return letters.withLock { $0 }
    }

    static func header(_ name: String, of message: KafkaConsumerMessage) -> String? {
        message.headers.first { $0.name == name }.map { String(decoding: $0.value, as: UTF8.self) }
    }

    /// Nothing left to process: the group committed every request.
    static func expectAllCommitted(_ cluster: KafkaMockCluster, _ count: Int) async throws {
        let lag = try await KafkaAdmin(brokers: cluster.brokers, timeoutMilliseconds: 5_000, logger: quiet).lag(group: "workers", topic: "requests")
        #expect(lag.map(\.lag).reduce(0, +) == 0, "\(lag)")
        #expect(lag.compactMap(\.committed).reduce(0, +) == Int64(count))
    }
    @Test func aTransientFailureIsRetriedWithGrowingPausesAndThenSucceeds() async throws {
        let cluster = try await Self.setUp(["flaky", "fine"])
        let processor = ScriptedProcessor { value, attempt, _ in
            value == "flaky" && attempt < 3 ? .transient("timeout", dependency: .other) : nil
        }
        let configuration = PrecomputeWorker.Configuration(
            retry: RetryPolicy(maxAttempts: 5, initialBackoff: .milliseconds(40), maximumBackoff: .seconds(1)))
        try await Self.withWorker(cluster, processor: processor, configuration: configuration) {
            try await eventually("both processed") { processor.successes == ["flaky", "fine"] }
        }
        let attempts = processor.attempts(of: "flaky")
        #expect(attempts[1] - attempts[0] >= .milliseconds(40))
        #expect(attempts[2] - attempts[1] >= .milliseconds(80), "the pause doubles")
        #expect(processor.attempts(of: "fine").count == 1)
        _ = try await Self.deadLetters(cluster, expecting: 0)
        try await Self.expectAllCommitted(cluster, 2)
    }

    @Test func aRequestThatKeepsFailingIsDeadLetteredOnceItsAttemptsAreUsedUp() async throws {
        let cluster = try await Self.setUp(["doomed", "fine"])
        let processor = ScriptedProcessor { value, _, _ in value == "doomed" ? .transient("the cache key is locked", dependency: .other) : nil }
        let configuration = PrecomputeWorker.Configuration(
            retry: RetryPolicy(maxAttempts: 3, initialBackoff: .milliseconds(5), maximumBackoff: .milliseconds(20)))
        try await Self.withWorker(cluster, processor: processor, configuration: configuration) {
            try await eventually("the attempts used up") { processor.attempts(of: "doomed").count == 3 && processor.successes == ["fine"] }
            let letters = try await Self.deadLetters(cluster, expecting: 1)
            let letter = try #require(letters.first)
            #expect(letter.valueString == "doomed" && letter.keyString == "doomed", "the request, unchanged")
            #expect(Self.header(DeadLetterHeader.attempts, of: letter) == "3")
            #expect(Self.header(DeadLetterHeader.reason, of: letter) == "the cache key is locked")
            #expect(Self.header(DeadLetterHeader.source, of: letter)?.hasPrefix("requests/") == true)
        }
        #expect(processor.attempts(of: "doomed").count == 3, "no attempt after the dead letter")
        try await Self.expectAllCommitted(cluster, 2)
    }

    @Test func aPermanentFailureIsDeadLetteredWithoutRetrying() async throws {
        let cluster = try await Self.setUp(["invalid"])
        let processor = ScriptedProcessor { _, _, _ in .permanent("invalid request: no body") }
        try await Self.withWorker(cluster, processor: processor, configuration: .init()) {
            let letter = try #require(try await Self.deadLetters(cluster, expecting: 1).first)
            #expect(Self.header(DeadLetterHeader.attempts, of: letter) == "1")
            #expect(Self.header(DeadLetterHeader.reason, of: letter) == "invalid request: no body")
        }
        #expect(processor.attempts(of: "invalid").count == 1)
        try await Self.expectAllCommitted(cluster, 1)
    }

    /// The search source stops answering: after two failures in a row the worker probes it,
    /// finds it down and pauses instead of burning the backlog's attempts (two each, which
    /// would dead-letter everything in milliseconds); once a probe answers, everything goes through.
    @Test func aDependencyThatIsDownPausesTheWorkerAndNothingIsDeadLettered() async throws {
        let values = (0..<12).map { "request \($0)" }
        let cluster = try await Self.setUp(values)
        let processor = ScriptedProcessor { _, _, down in down ? .transient("503 from the source", dependency: .searchSource) : nil }
        processor.down.store(true, ordering: .relaxed)
        let configuration = PrecomputeWorker.Configuration(
            concurrency: 2, retry: RetryPolicy(maxAttempts: 2, initialBackoff: .milliseconds(5), maximumBackoff: .milliseconds(10)),
            pauseAfterFailures: 2, probe: Backoff(initial: .milliseconds(50), maximum: .milliseconds(100)))
        try await Self.withWorker(cluster, processor: processor, configuration: configuration) {
            try await eventually("probes while down") { processor.probeCount >= 3 }
            let attemptsWhileDown = processor.totalAttempts
            try await Task.sleep(for: .milliseconds(300))
            #expect(processor.totalAttempts == attemptsWhileDown, "paused: no attempts while the source is down")
            #expect(attemptsWhileDown <= 4, "the outage was noticed after a few failures: \(attemptsWhileDown)")
            processor.down.store(false, ordering: .relaxed)
            try await eventually("everything processed after the outage") { processor.successes == Set(values) }
        }
        _ = try await Self.deadLetters(cluster, expecting: 0)
        try await Self.expectAllCommitted(cluster, values.count)
    }

    /// The worker's service cancelled outright (no graceful shutdown) while requests wait out
    /// an outage: it still returns, giving the held requests up for redelivery.
    @Test func aWorkerCancelledDuringAnOutageStillReturns() async throws {
        let cluster = try await Self.setUp((0..<4).map { "request \($0)" })
        let processor = ScriptedProcessor { _, _, down in down ? .transient("503 from the source", dependency: .searchSource) : nil }
        processor.down.store(true, ordering: .relaxed)
        let configuration = PrecomputeWorker.Configuration(
            concurrency: 2, pauseAfterFailures: 1, probe: Backoff(initial: .milliseconds(50), maximum: .milliseconds(100)))
        let (worker, producer) = try Self.worker(cluster, processor: processor, configuration: configuration)
        let running = Task { try await worker.run() }
        try await eventually("an outage under way") { processor.probeCount >= 2 }
        running.cancel()
        let returned = Atomic<Bool>(false)
        Task {
            _ = try? await running.value
            returned.store(true, ordering: .relaxed)
        }
        try await eventually("run() returning after cancellation") { returned.load(ordering: .relaxed) }
        await producer.shutdown()
        _ = try await Self.deadLetters(cluster, expecting: 0)
    }
}
