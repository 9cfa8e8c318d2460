import BraidCore
import BraidKafka
import BraidPrecompute
import Logging
import ServiceLifecycle
import Synchronization
import Tracing

/// A precompute worker: one member of the `braid-workers` consumer group (or of the
/// events group, with an ``EventProcessor``).
///
/// Messages with the same key run in order; different keys of one partition run
/// concurrently (``Ordering/key``, or one partition at a time with ``Ordering/partition``),
/// at most `concurrency` at once. A message counts as finished once its result is in Redis
/// or its dead letter is acknowledged; a partition's stored offset is always its lowest
/// unfinished message, so a crash redelivers unfinished work and never skips any
/// (processing is idempotent, so a redelivery costs only time).
///
/// When a dependency (the search source, Redis) stops answering, the worker pauses its
/// partitions instead of using up the backlog's attempts, probes the dependency with
/// backoff and resumes once it answers (see ``OutageDetector``).
///
/// On graceful shutdown (SIGTERM) the worker stops fetching, finishes what it has started,
/// gives back what it has not, commits, leaves the group and returns.
public final class PrecomputeWorker: Service, Sendable {
    /// Which messages must run one after the other.
    public enum Ordering: Sendable, Hashable {
        /// Messages with the same key (the cache key they write), in each partition.
        case key
        /// All messages of a partition.
        case partition
    }

    public struct Configuration: Sendable {
        public var concurrency: Int
        public var ordering: Ordering
        /// Messages taken from the consumer and not finished, in all partitions.
        public var readAhead: Int
        public var retry: RetryPolicy
        /// Transient failures of one dependency in a row after which it is probed (and the
        /// worker pauses if it does not answer); 0 never pauses.
        public var pauseAfterFailures: Int
        /// Delays between probes while paused.
        public var probe: Backoff

        public init(
            concurrency: Int = 8, ordering: Ordering = .key, readAhead: Int = 1_000, retry: RetryPolicy = RetryPolicy(),
            pauseAfterFailures: Int = 3, probe: Backoff = Backoff(initial: .milliseconds(500), maximum: .seconds(5))
        ) {
            self.concurrency = max(1, concurrency)
            self.ordering = ordering
            self.readAhead = max(readAhead, self.concurrency)
            self.retry = retry
            self.pauseAfterFailures = max(0, pauseAfterFailures)
            self.probe = probe
        }
    }

    /// What must run in order: messages of one partition with one key (or of one partition).
    struct Lane: Hashable, Sendable {
        let partition: TopicPartition
        let key: [UInt8]?

        init(_ message: KafkaConsumerMessage, ordering: Ordering) {
            partition = message.topicPartition
            key = ordering == .key ? message.key : nil
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
    private let gate: PauseGate
    private let detector: Mutex<OutageDetector>
    /// Outages as they begin, for the probing task.
    private let outages: (stream: AsyncStream<ProcessingFailure.Dependency>, continuation: AsyncStream<ProcessingFailure.Dependency>.Continuation)
    /// While the dead-letter topic is unreachable: the request must not be lost, so it is
    /// retried until shutdown, at most every 5 s.
    static let deadLetterBackoff = Backoff(initial: .milliseconds(200), maximum: .seconds(5))

    /// Joins the consumer group of `consumer` (the worker owns the consumer: it serves its
    /// revocations).
    public init(
        consumer consumerConfiguration: KafkaConsumerConfiguration, deadLetters: DeadLetterPublisher, processor: any MessageProcessor,
        store: PrecomputeStore, configuration: Configuration = Configuration(), logger: Logger = Logger(label: "braid.worker")
    ) throws {
        let gate = PauseGate()
        self.consumer = try KafkaConsumer(configuration: consumerConfiguration, logger: logger) { event in
            // Requests held back by an outage give their revoked partitions up at once, so the
            // revocation waits only for requests being processed.
            if case .revoked(let partitions) = event { gate.revoke(Set(partitions)) }
        }
        self.gate = gate
        self.detector = Mutex(OutageDetector(threshold: configuration.pauseAfterFailures))
        self.outages = AsyncStream.makeStream(of: ProcessingFailure.Dependency.self)
        self.deadLetters = deadLetters
        self.processor = processor
        self.store = store
        self.configuration = configuration
        self.logger = logger
    }

    public func run() async throws {
        let dispatcher = LaneDispatcher(limit: configuration.concurrency, readAhead: configuration.readAhead)
        let ordering = configuration.ordering
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                // Cancelled instead: the sequence has ended and the consumer is closed below.
                do { try await gracefulShutdown() } catch { return }
                self.stopping.store(true, ordering: .relaxed)
                self.logger.info("stopping: finishing started requests, then committing and leaving the group")
                self.gate.stop()
                await self.consumer.close()
            }
            group.addTask { await self.probeOutages() }
            try await dispatcher.run(consumer.messages, lane: { Lane($0, ordering: ordering) }) { message in
                await self.handle(message)
            }
            // The sequence ended (shutdown, or the consumer closed): close is idempotent.
            await consumer.close()
            outages.continuation.finish()
            group.cancelAll()
        }
        logger.info("stopped", metadata: ["processed": "\(metrics.tally.value)"])
    }

    /// Processes one message to a settled state, then stores its offset; or gives it up
    /// (revoked, shutting down) for redelivery.
    private func handle(_ message: KafkaConsumerMessage) async {
        let started = ContinuousClock.now
        // The publisher's span, from the message's `traceparent`: each attempt is its child.
        let parent = KafkaTraceContext.extract(from: message.headers)
        var attempt = 0
        while true {
            if gate.outage != nil {
                // A partition assigned during the outage is paused as its first message arrives.
                pauseIfNeeded(message.topicPartition)
                switch await gate.wait(partition: message.topicPartition, stillCurrent: { consumer.isCurrent(message) }) {
                case .resumed:
                    attempt = 0  // the outage was not the request's fault
                case .revoked, .stopping:
                    return abandon(message)
                }
            }
            // Revoked while it waited in its lane or between attempts: the next owner has it.
            guard consumer.isCurrent(message) else { return abandon(message) }
            attempt += 1
            do {
                let (kind, outcome) = try await process(message, attempt: attempt, parent: parent).get()
                detector.withLock { $0.succeeded() }
                metrics.processed(kind, outcome: outcome == .stale ? "stale" : "written")
                break
            } catch {
                if case .transient(_, let dependency) = error {
                    metrics.failedAttempt()
                    if detector.withLock({ $0.failed(dependency) }), await isDown(dependency) {
                        guard beginOutage(dependency, error) else { return abandon(message) }
                        continue
                    }
                    if let delay = configuration.retry.delay(afterAttempt: attempt) {
                        logger.warning("request failed, retrying", metadata: metadata(message, ["attempt": "\(attempt)", "error": "\(error)"]))
                        try? await Task.sleep(for: delay)
                        continue
                    }
                    // Attempts used up: the dead-letter topic only if the dependency answers,
                    // so the failure is this request's own.
                    if await isDown(dependency) {
                        guard beginOutage(dependency, error) else { return abandon(message) }
                        continue
                    }
                }
                guard await deadLetter(message, failure: error, attempts: attempt) else { return abandon(message) }
                break
            }
        }
        metrics.duration(ContinuousClock.now - started)
        do {
            try consumer.storeOffset(message)
        } catch {
            // Revoked meanwhile: the new owner gets the message again, which is harmless.
            logger.notice("offset not stored", metadata: metadata(message, ["error": "\(error)"]))
        }
    }

    /// One processing attempt as a consumer span under `parent` (the publisher's span).
    private func process(
        _ message: KafkaConsumerMessage, attempt: Int, parent: ServiceContext
    ) async -> Result<(kind: String, outcome: MaterializeOutcome), ProcessingFailure> {
        await withSpan(processor.spanName, context: parent, ofKind: .consumer) { span in
            span.attributes["messaging.system"] = "kafka"
            span.attributes["messaging.destination.name"] = message.topic
            span.attributes["messaging.kafka.partition"] = Int(message.partition)
            span.attributes["messaging.kafka.offset"] = Int(message.offset)
            span.attributes["braid.attempt"] = attempt
            do throws(ProcessingFailure) {
                let result = try await processor.process(message.value)
                span.attributes["braid.kind"] = result.kind
                span.attributes["braid.outcome"] = result.outcome == .stale ? "stale" : "written"
                return .success(result)
            } catch {
                span.recordError(error)
                span.setStatus(SpanStatus(code: .error, message: error.reason))
                return .failure(error)
            }
        }
    }

    /// Whether `dependency` fails its probe (pausing is on and the processor can probe it).
    private func isDown(_ dependency: ProcessingFailure.Dependency) async -> Bool {
        guard configuration.pauseAfterFailures > 0, let answers = await processor.probe(dependency) else { return false }
        metrics.probed(dependency, answered: answers)
        return !answers
    }

    /// Pauses every assigned partition while `dependency` is down; the probing task resumes
    /// them. False when the worker is stopping (the request is then given up).
    private func beginOutage(_ dependency: ProcessingFailure.Dependency, _ failure: ProcessingFailure) -> Bool {
        guard gate.begin(dependency) else { return !stopping.load(ordering: .relaxed) }
        let partitions = consumer.assignment.sorted { $0.description < $1.description }
        consumer.pause(partitions)
        metrics.paused(dependency, partitions: consumer.pausedPartitions.count)
        logger.error(
            "\(dependency.rawValue) does not answer: pausing \(partitions.count) partition(s) until it does; nothing is dead-lettered meanwhile",
            metadata: ["error": "\(failure.reason)", "partitions": "\(partitions)"])
        outages.continuation.yield(dependency)
        return true
    }

    private func pauseIfNeeded(_ partition: TopicPartition) {
        guard let dependency = gate.outage, !consumer.pausedPartitions.contains(partition) else { return }
        consumer.pause([partition])
        metrics.paused(dependency, partitions: consumer.pausedPartitions.count)
    }

    /// Probes each outage's dependency with backoff; once it answers, lets the held requests
    /// go on and resumes fetching.
    private func probeOutages() async {
        for await dependency in outages.stream {
            var probes = 0
            while !stopping.load(ordering: .relaxed), !Task.isCancelled {
                probes += 1
                try? await Task.sleep(for: configuration.probe.delay(beforeRetry: probes))
                guard !stopping.load(ordering: .relaxed), !Task.isCancelled else { return }
                let answers = await processor.probe(dependency) ?? true
                metrics.probed(dependency, answered: answers)
                guard answers else {
                    logger.warning("\(dependency.rawValue) still does not answer", metadata: ["probes": "\(probes)", "held": "\(gate.waiting)"])
                    continue
                }
                let paused = consumer.pausedPartitions
                gate.end()
                consumer.resume(Array(paused))
                metrics.paused(dependency, partitions: 0)
                logger.notice("\(dependency.rawValue) answers again: resuming \(paused.count) partition(s)", metadata: ["probes": "\(probes)"])
                break
            }
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

    /// Leaves a message unfinished: its partition's committed offset stays at or below it,
    /// so it is delivered again (here or to the partition's next owner).
    private func abandon(_ message: KafkaConsumerMessage) {
        consumer.abandon(message)
        logger.debug("left unfinished for redelivery", metadata: metadata(message, [:]))
    }

    private func metadata(_ message: KafkaConsumerMessage, _ extra: Logger.Metadata) -> Logger.Metadata {
        var metadata = extra
        metadata["partition"] = "\(message.partition)"
        metadata["offset"] = "\(message.offset)"
        if let key = message.keyString { metadata["key"] = "\(key)" }
        return metadata
    }
}
