import CRdKafka
import Logging
import Synchronization

/// Receives the producer's delivery reports on its poll thread and hands them out in
/// batches: one lock round per `rd_kafka_poll`, not per message.
///
/// Messages sent with ``KafkaProducer/sendAndAwait(_:)`` carry a non-zero id as their
/// librdkafka opaque; their waiting tasks are looked up by it. Fire-and-forget messages
/// carry 0 and only move the counters (and reach the optional batch handler).
final class ProducerCallbacks: CallbackContext, @unchecked Sendable {
    typealias BatchHandler = @Sendable ([KafkaDeliveryReport]) -> Void

    private enum Slot {
        case waiting(CheckedContinuation<KafkaDeliveryReport, any Error>?)
        case done(Result<KafkaDeliveryReport, any Error>)
    }

    private struct Shared {
        var nextID: UInt = 1
        var slots: [UInt: Slot] = [:]
        var counts = KafkaDeliveryCounts()
        var capacityWaiters: [CheckedContinuation<Void, Never>] = []
        var stopped = false
    }

    private let shared = Mutex(Shared())
    private let handler: BatchHandler?

    // Touched only on the poll thread, inside and right after rd_kafka_poll.
    private var pendingAwaited: [(UInt, KafkaDeliveryReport)] = []
    private var pendingReports: [KafkaDeliveryReport] = []
    private var pendingCounts = KafkaDeliveryCounts()

    init(logger: Logger, statistics: KafkaStatisticsRecorder?, handler: BatchHandler?) {
        self.handler = handler
        super.init(logger: logger, statistics: statistics)
    }

    override func install(on conf: OpaquePointer) {
        super.install(on: conf)
        rd_kafka_conf_set_dr_msg_cb(conf, deliveryCallback)
    }

    var counts: KafkaDeliveryCounts { shared.withLock { $0.counts } }

    // MARK: awaited messages

    /// Reserves an id for a message whose report someone will await.
    func reserve() -> UInt {
        shared.withLock { shared in
            defer { shared.nextID &+= 1 }
            shared.slots[shared.nextID] = .waiting(nil)
            return shared.nextID
        }
    }

    /// The message never reached librdkafka: forget its id.
    func cancel(_ id: UInt) {
        _ = shared.withLock { $0.slots.removeValue(forKey: id) }
    }

    /// Waits for the report of a reserved id (it may have arrived already).
    func report(for id: UInt) async throws -> KafkaDeliveryReport {
        try await withCheckedThrowingContinuation { continuation in
            let ready: Result<KafkaDeliveryReport, any Error>? = shared.withLock { shared in
                if case .done(let result) = shared.slots[id] {
                    shared.slots[id] = nil
                    return result
                }
                if shared.stopped {
                    return .failure(KafkaError(.shutdown, "the producer shut down before the message was acknowledged"))
                }
                shared.slots[id] = .waiting(continuation)
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }

    // MARK: capacity

    /// Waits until the poll thread has seen deliveries (so the local queue has room again).
    func waitForCapacity() async {
        await withCheckedContinuation { continuation in
            let stopped = shared.withLock { shared in
                if !shared.stopped { shared.capacityWaiters.append(continuation) }
                return shared.stopped
            }
            if stopped { continuation.resume() }
        }
    }

    // MARK: poll thread

    /// Called by librdkafka inside `rd_kafka_poll` for each message.
    fileprivate func collect(_ message: UnsafePointer<rd_kafka_message_t>) {
        let id = UInt(bitPattern: message.pointee._private)
        let failed = message.pointee.err != RD_KAFKA_RESP_ERR_NO_ERROR
        if id == 0 {
            if failed { pendingCounts.failed += 1 } else { pendingCounts.delivered += 1 }
            guard handler != nil || failed else { return }
        }
        let report = KafkaDeliveryReport(
            topic: message.pointee.rkt.map { String(cString: rd_kafka_topic_name($0)) } ?? "",
            partition: message.pointee.partition,
            offset: failed ? -1 : message.pointee.offset,
            error: failed ? KafkaError.librdkafka(.delivery, message.pointee.err, context: "delivery failed") : nil)
        if id != 0 {
            pendingAwaited.append((id, report))
        } else {
            if failed, pendingCounts.failed <= 10 || pendingCounts.failed % 1000 == 0 {
                logger.warning("message not delivered: \(report.error!)", metadata: ["topic": "\(report.topic)"])
            }
            if handler != nil { pendingReports.append(report) }
        }
    }

    /// Hands everything collected since the last call to its waiters, the counters and the
    /// batch handler. Poll thread only.
    func publish() {
        let capacityWaiting = shared.withLock { !$0.capacityWaiters.isEmpty }
        guard !pendingAwaited.isEmpty || !pendingReports.isEmpty || pendingCounts != KafkaDeliveryCounts() || capacityWaiting
        else { return }
        var resumptions: [(CheckedContinuation<KafkaDeliveryReport, any Error>, Result<KafkaDeliveryReport, any Error>)] = []
        let waiters = shared.withLock { shared in
            shared.counts.delivered += pendingCounts.delivered
            shared.counts.failed += pendingCounts.failed
            for (id, report) in pendingAwaited {
                let result: Result<KafkaDeliveryReport, any Error> = report.error.map { .failure($0) } ?? .success(report)
                switch shared.slots[id] {
                case .waiting(let continuation?):
                    shared.slots[id] = nil
                    resumptions.append((continuation, result))
                case .waiting(nil):
                    shared.slots[id] = .done(result)
                case .done, nil:
                    break
                }
            }
            defer { shared.capacityWaiters = [] }
            return shared.capacityWaiters
        }
        pendingCounts = KafkaDeliveryCounts()
        pendingAwaited.removeAll(keepingCapacity: true)
        for (continuation, result) in resumptions { continuation.resume(with: result) }
        for waiter in waiters { waiter.resume() }
        if let handler, !pendingReports.isEmpty {
            handler(pendingReports)
            pendingReports.removeAll(keepingCapacity: true)
        }
    }

    /// The poll thread is ending: fail whatever still waits. Poll thread only.
    func stop() {
        publish()
        let (slots, waiters) = shared.withLock { shared in
            shared.stopped = true
            // Reports that arrived but are not awaited yet stay for report(for:) to pick up.
            let waiting = shared.slots.filter { if case .waiting = $0.value { true } else { false } }
            for id in waiting.keys { shared.slots[id] = nil }
            defer { shared.capacityWaiters = [] }
            return (waiting, shared.capacityWaiters)
        }
        let error = KafkaError(.shutdown, "the producer shut down before the message was acknowledged")
        for case .waiting(let continuation?) in slots.values { continuation.resume(throwing: error) }
        for waiter in waiters { waiter.resume() }
    }
}

private func deliveryCallback(_ rk: OpaquePointer?, _ message: UnsafePointer<rd_kafka_message_t>?, _ opaque: UnsafeMutableRawPointer?) {
    guard let message, let callbacks = ProducerCallbacks.from(opaque) else { return }
    callbacks.collect(message)
}
