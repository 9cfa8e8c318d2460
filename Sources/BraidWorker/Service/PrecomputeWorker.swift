import BraidCore
import BraidKafka
import BraidPrecompute
import Logging
import ServiceLifecycle
import Synchronization

/// A precompute worker: one member of the `braid-workers` consumer group (or of the
/// events group, with an ``EventProcessor``).
///
/// Messages are processed in order within a partition (one cache key always maps to one
/// partition) and concurrently across partitions, at most `concurrency` at once. A message's
/// offset is stored only after its result is in Redis or its dead letter is acknowledged, so
/// a crash redelivers unfinished work and never loses it (processing is idempotent, so a
/// redelivery costs only time).
///
/// On graceful shutdown (SIGTERM) the worker stops fetching, finishes what it holds,
/// commits, leaves the group and returns.
public final class PrecomputeWorker: Service, Sendable {
    public struct Configuration: Sendable {
        public var concurrency: Int
        public var retry: RetryPolicy

        public init(concurrency: Int = 8, retry: RetryPolicy = RetryPolicy()) {
            self.concurrency = max(1, concurrency)
            self.retry = retry
        }
    }

    private let consumer: KafkaConsumer
    private let deadLetters: DeadLetterPublisher
    private let processor: any MessageProcessor
    /// Where dead-letter markers live.
    private let store: PrecomputeStore
    private let configuration: Configuration
    private let logger: Logger
    private let metrics = WorkerMetrics()
    private let stopping = Atomic<Bool>(false)
    /// Partitions on which a message was left unfinished: later messages of them are left
    /// too, since storing a later offset would commit past the unfinished one.
    private let abandoned = Mutex<Set<TopicPartition>>([])
    /// While the dead-letter topic is unreachable: the request must not be lost, so it is
    /// retried until shutdown, at most every 5 s.
    static let deadLetterBackoff = Backoff(initial: .milliseconds(200), maximum: .seconds(5))

    public init(
        consumer: KafkaConsumer, deadLetters: DeadLetterPublisher, processor: any MessageProcessor, store: PrecomputeStore,
        configuration: Configuration = Configuration(), logger: Logger = Logger(label: "braid.worker")
    ) {
        self.consumer = consumer
        self.deadLetters = deadLetters
        self.processor = processor
        self.store = store
        self.configuration = configuration
        self.logger = logger
    }

    public func run() async throws {
        let dispatcher = LaneDispatcher(limit: configuration.concurrency)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                // Cancelled instead: the sequence has ended and the consumer is closed below.
                do { try await gracefulShutdown() } catch { return }
                self.stopping.store(true, ordering: .relaxed)
                self.logger.info("stopping: finishing in-flight requests, then committing and leaving the group")
                await self.consumer.close()
            }
            try await dispatcher.run(consumer.messages, lane: { Int($0.partition) }) { message in
                await self.handle(message)
            }
            // The sequence ended (shutdown, or the consumer closed): close is idempotent.
            await consumer.close()
            group.cancelAll()
        }
        logger.info("stopped")
    }

    /// Processes one message to a settled state, then stores its offset.
    private func handle(_ message: KafkaConsumerMessage) async {
        guard !abandoned.withLock({ $0.contains(message.topicPartition) }) else { return }
        let started = ContinuousClock.now
        defer { metrics.duration(ContinuousClock.now - started) }
        var attempt = 0
        while true {
            attempt += 1
            do {
                let (kind, outcome) = try await processor.process(message.value)
                metrics.processed(kind, outcome: outcome == .stale ? "stale" : "written")
                break
            } catch {
                if case .transient = error, let delay = configuration.retry.delay(afterAttempt: attempt) {
                    metrics.failedAttempt()
                    logger.warning("request failed, retrying", metadata: metadata(message, ["attempt": "\(attempt)", "error": "\(error)"]))
                    try? await Task.sleep(for: delay)
                    continue
                }
                guard await deadLetter(message, failure: error, attempts: attempt) else {
                    abandon(message)
                    return
                }
                break
            }
        }
        do {
            try consumer.storeOffset(message)
        } catch {
            // Revoked meanwhile: the new owner gets the message again, which is harmless.
            logger.notice("offset not stored", metadata: metadata(message, ["error": "\(error)"]))
        }
    }

    /// Publishes a dead letter, retrying while Kafka is unreachable; false if shutdown came
    /// first (the message is then left for redelivery).
    private func deadLetter(_ message: KafkaConsumerMessage, failure: ProcessingFailure, attempts: Int) async -> Bool {
        var permanent = false
        if case .permanent = failure { permanent = true }
        // Best effort both ways: with Redis down the letter is still sent (a duplicate dead
        // letter is better than a lost request).
        if (try? await store.wasDeadLettered(topic: message.topic, partition: message.partition, offset: message.offset)) == true {
            logger.info("already dead-lettered before a redelivery", metadata: metadata(message, [:]))
            return true
        }
        var failures = 0
        while true {
            do {
                try await deadLetters.publish(message, reason: failure.reason, attempts: attempts)
                try? await store.markDeadLettered(topic: message.topic, partition: message.partition, offset: message.offset)
                metrics.deadLettered(permanent: permanent)
                logger.notice("request dead-lettered", metadata: metadata(message, ["reason": "\(failure.reason)"]))
                return true
            } catch {
                logger.error("cannot publish to the dead-letter topic", metadata: metadata(message, ["error": "\(error)"]))
                guard !stopping.load(ordering: .relaxed), !Task.isCancelled else { return false }
                failures += 1
                try? await Task.sleep(for: Self.deadLetterBackoff.delay(beforeRetry: failures))
            }
        }
    }

    private func abandon(_ message: KafkaConsumerMessage) {
        abandoned.withLock { _ = $0.insert(message.topicPartition) }
        logger.warning("left unfinished for redelivery", metadata: metadata(message, [:]))
    }

    private func metadata(_ message: KafkaConsumerMessage, _ extra: Logger.Metadata) -> Logger.Metadata {
        var metadata = extra
        metadata["partition"] = "\(message.partition)"
        metadata["offset"] = "\(message.offset)"
        if let key = message.keyString { metadata["key"] = "\(key)" }
        return metadata
    }
}
