import CRdKafka
import Logging
import ServiceLifecycle

/// A member of a Kafka consumer group.
///
/// Iterate ``messages``; call ``storeOffset(_:)`` when a message is done (in any order) or
/// ``abandon(_:)`` it. The offset stored for a partition is always its lowest unfinished
/// one; stored offsets are committed every `autoCommitIntervalMilliseconds`, on every
/// revocation (after handed-out messages were settled, see ``KafkaRebalanceEvent/revoked(_:)``)
/// and on close, which gives at-least-once processing that never skips a message, with no
/// redelivery of finished work on a clean rebalance.
///
/// Polling runs on a dedicated thread. Fetched messages wait in a bounded buffer; when the
/// application falls behind, fetching pauses. As a ServiceLifecycle `Service`, ``run()``
/// lasts until graceful shutdown or cancellation, then closes: the sequence ends, offsets
/// are committed and the consumer leaves the group.
public final class KafkaConsumer: Service, Sendable {
    private let handle: RDKafkaHandle
    private let buffer: ConsumerBuffer
    private let poller: PollThread
    private let statistics: KafkaStatisticsRecorder?

    /// - Parameter onRebalance: called on every assignment and revocation; on revocation the
    ///   partitions are released only after it returns (or the revocation timeout passes).
    public init(
        configuration: KafkaConsumerConfiguration,
        logger: Logger = Logger(label: "braid.kafka.consumer"),
        onRebalance: (@Sendable (KafkaRebalanceEvent) async -> Void)? = nil
    ) throws {
        let buffer = ConsumerBuffer(
            capacity: configuration.maxBufferedMessages, maxReadAheadPerPartition: configuration.maxReadAheadPerPartition)
        let statistics = configuration.statisticsIntervalMilliseconds.map { _ in
            KafkaStatisticsRecorder(client: configuration.clientID)
        }
        let callbacks = ConsumerCallbacks(
            logger: logger, statistics: statistics, buffer: buffer,
            revocationTimeout: Double(configuration.revocationTimeoutMilliseconds) / 1000, onRebalance: onRebalance)
        let handle = try RDKafkaHandle(.consumer, properties: configuration.librdkafkaProperties, context: callbacks)
        self.handle = handle
        self.buffer = buffer
        self.statistics = statistics
        let topics = configuration.topics
        poller = PollThread.start(name: "braid.kafka.consumer") { poller in
            ConsumerPollLoop(handle: handle, callbacks: callbacks, poller: poller, logger: logger).run(topics: topics)
        }
    }

    deinit {
        poller.requestStop(.graceful)
    }

    /// The fetched messages.
    public var messages: KafkaConsumerMessages { KafkaConsumerMessages(buffer: buffer) }

    /// The last librdkafka statistics, when `statisticsIntervalMilliseconds` is set.
    package var lastStatistics: KafkaStatistics? { statistics?.latest }

    /// Partitions currently assigned to this consumer.
    public var assignment: Set<TopicPartition> { buffer.assignment }

    /// Runs until graceful shutdown or cancellation, then closes the consumer.
    public func run() async throws {
        await withTaskCancellationOrGracefulShutdownHandler {
            await poller.waitUntilFinished()
        } onCancelOrGracefulShutdown: { [poller] in
            poller.requestStop(.graceful)
        }
    }

    /// Stops fetching, ends ``messages``, waits for handed-out messages (up to the revocation
    /// timeout), commits stored offsets and leaves the group. Safe to call more than once.
    public func close() async {
        poller.requestStop(.graceful)
        await poller.waitUntilFinished()
    }

    /// Destroys the client without committing or leaving the group, as if the process had
    /// crashed: the group reassigns its partitions only after the session timeout.
    /// For fault tests only.
    package func _abandonWithoutClosing() async {
        poller.requestStop(.abandon)
        await poller.waitUntilFinished()
    }

    var handleForOffsets: RDKafkaHandle { handle }
    var bufferForOffsets: ConsumerBuffer { buffer }
}
