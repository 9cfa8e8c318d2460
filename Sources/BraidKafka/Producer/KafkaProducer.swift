import CRdKafka
import Foundation
import Logging
import ServiceLifecycle

/// An idempotent Kafka producer.
///
/// - ``send(_:)`` enqueues and returns; outcomes are counted in ``deliveryCounts`` and, if a
///   `deliveryReports` handler was given, passed to it in batches on the poll thread.
/// - ``sendAndAwait(_:)`` returns where the broker stored the message, or throws
///   ``KafkaError`` (code ``KafkaError/Code/timedOut`` after `message.timeout.ms`).
///
/// A dedicated thread polls librdkafka for delivery reports from creation on. As a
/// ServiceLifecycle `Service`, ``run()`` lasts until graceful shutdown or cancellation and then
/// flushes; without a service group call ``shutdown()``.
public final class KafkaProducer: Service, Sendable {
    private let handle: RDKafkaHandle
    private let callbacks: ProducerCallbacks
    private let poller: PollThread

    /// - Parameter deliveryReports: optional handler for fire-and-forget reports, called on
    ///   the poll thread with every batch; it must return quickly.
    public init(
        configuration: KafkaProducerConfiguration,
        logger: Logger = Logger(label: "braid.kafka.producer"),
        deliveryReports: (@Sendable ([KafkaDeliveryReport]) -> Void)? = nil
    ) throws {
        let statistics = configuration.statisticsIntervalMilliseconds.map { _ in
            KafkaStatisticsRecorder(client: configuration.clientID)
        }
        let callbacks = ProducerCallbacks(logger: logger, statistics: statistics, handler: deliveryReports)
        let handle = try RDKafkaHandle(.producer, properties: configuration.librdkafkaProperties, context: callbacks)
        self.handle = handle
        self.callbacks = callbacks
        let flushTimeout = Double(configuration.flushTimeoutMilliseconds) / 1000
        poller = PollThread.start(name: "braid.kafka.producer") { poller in
            Self.pollLoop(handle: handle, callbacks: callbacks, poller: poller, flushTimeout: flushTimeout)
        }
    }

    deinit {
        poller.requestStop(.graceful)
    }

    /// Enqueues a message without waiting for the broker. Waits (without blocking a thread)
    /// while librdkafka's local queue is full.
    public func send(_ message: KafkaProducerMessage) async throws {
        try await enqueue(message, opaque: 0)
    }

    /// Sends a message and returns once the broker acknowledged it.
    /// - Throws: ``KafkaError``; `isRetriable` tells whether sending again may succeed.
    @discardableResult
    public func sendAndAwait(_ message: KafkaProducerMessage) async throws -> KafkaDeliveryReport {
        let id = callbacks.reserve()
        do {
            try await enqueue(message, opaque: id)
        } catch {
            callbacks.cancel(id)
            throw error
        }
        return try await callbacks.report(for: id)
    }

    /// Outcomes of ``send(_:)`` so far.
    public var deliveryCounts: KafkaDeliveryCounts { callbacks.counts }

    /// The last librdkafka statistics, when `statisticsIntervalMilliseconds` is set.
    package var lastStatistics: KafkaStatistics? { callbacks.statistics?.latest }

    /// Messages enqueued or in flight (`rd_kafka_outq_len`).
    public var pendingCount: Int {
        (try? handle.withPointer { Int(rd_kafka_outq_len($0)) }) ?? 0
    }

    /// Runs until graceful shutdown or cancellation, then flushes and stops.
    public func run() async throws {
        await withTaskCancellationOrGracefulShutdownHandler {
            await poller.waitUntilFinished()
        } onCancelOrGracefulShutdown: { [poller] in
            poller.requestStop(.graceful)
        }
    }

    /// Stops accepting messages, delivers the queued ones (up to the flush timeout) and
    /// destroys the client. Safe to call more than once.
    public func shutdown() async {
        poller.requestStop(.graceful)
        await poller.waitUntilFinished()
    }

    private func enqueue(_ message: KafkaProducerMessage, opaque: UInt) async throws {
        while true {
            do {
                return try handle.produce(message, opaque: opaque)
            } catch let error as KafkaError where error.librdkafkaCode == KafkaResponseCode.queueFull {
                await callbacks.waitForCapacity()
            }
        }
    }

    private static func pollLoop(handle: RDKafkaHandle, callbacks: ProducerCallbacks, poller: PollThread, flushTimeout: Double) {
        let rk = handle.raw
        while poller.stopRequest == nil {
            rd_kafka_poll(rk, 100)
            callbacks.publish()
        }
        handle.refuseNewWork()
        if poller.stopRequest == .graceful {
            // A flush that hands out reports as they come, instead of rd_kafka_flush's one wait.
            let deadline = Date().addingTimeInterval(flushTimeout)
            while rd_kafka_outq_len(rk) > 0, Date() < deadline {
                rd_kafka_poll(rk, 50)
                callbacks.publish()
            }
        }
        // Whatever is left fails with a purge error instead of being dropped silently.
        rd_kafka_purge(rk, Int32(RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT))
        rd_kafka_poll(rk, 0)
        callbacks.stop()
        handle.destroy()
    }
}
