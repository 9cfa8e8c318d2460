import Dispatch
import Foundation
import Logging

/// What librdkafka does for one rebalance, on the partitions its callback was given: the
/// C side of ``ConsumerRebalancer``, which a test replaces with a recording stand-in.
protocol RebalanceOperations {
    /// The group's protocol is cooperative: partitions move incrementally.
    var isCooperative: Bool { get }
    /// librdkafka considers the assignment lost (the session timed out): another member may
    /// own the partitions already, so nothing may be committed for them.
    var isAssignmentLost: Bool { get }
    /// Takes the callback's partitions: `rd_kafka_incremental_assign` or `rd_kafka_assign`.
    func assign(incremental: Bool)
    /// Gives them up: `rd_kafka_incremental_unassign`, or `rd_kafka_assign(NULL)`.
    func unassign(incremental: Bool)
    /// Commits the stored offsets synchronously (`rd_kafka_commit`).
    func commitStoredOffsets()
    /// Pauses and resumes fetching.
    func apply(_ action: ConsumerBuffer.FetchAction)
}

/// The consumer's side of a rebalance, in order. Runs on the poll thread, inside
/// `rd_kafka_consumer_poll` (or `rd_kafka_consumer_close`), and may block it.
///
/// An assignment takes the partitions, re-pauses those the application paused before a
/// rebalance took them away (librdkafka fetches new partitions unpaused) and tells the
/// application. A revocation gives the application a chance to finish first: buffered
/// messages of the revoked partitions are dropped and nothing more of them is handed out,
/// the application's handler runs (it abandons work it will not finish), handed-out messages
/// get until the revocation timeout to be finished or abandoned, the stored offsets (each
/// partition's contiguous finished prefix) are committed unless the assignment was lost, and
/// only then are the partitions released. So a message whose offset was committed is never
/// delivered to the next owner again, and one left unfinished always is.
struct ConsumerRebalancer: Sendable {
    let buffer: ConsumerBuffer
    let revocationTimeout: TimeInterval
    let onRebalance: (@Sendable (KafkaRebalanceEvent) async -> Void)?
    let logger: Logger
    /// The clock the revocation deadline is taken from.
    var now: @Sendable () -> Date = { Date() }

    func assign(_ partitions: [TopicPartition], _ librdkafka: some RebalanceOperations) {
        librdkafka.assign(incremental: librdkafka.isCooperative)
        buffer.assigned(partitions)
        librdkafka.apply(buffer.fetchAction(stalled: false))
        logger.info("partitions assigned", metadata: ["partitions": "\(partitions)"])
        runHandler(.assigned(partitions), until: now().addingTimeInterval(revocationTimeout))
    }

    func revoke(_ partitions: [TopicPartition], _ librdkafka: some RebalanceOperations) {
        let revoked = Set(partitions)
        let deadline = now().addingTimeInterval(revocationTimeout)
        buffer.beginRevocation(of: revoked)
        runHandler(.revoked(partitions), until: deadline)
        let unfinished = buffer.waitUntilDone(of: revoked, until: deadline)
        if unfinished > 0 {
            logger.warning(
                "revocation timeout: giving partitions away with unfinished messages; they will be redelivered",
                metadata: ["unfinished": "\(unfinished)"])
        }
        if !librdkafka.isAssignmentLost {
            librdkafka.commitStoredOffsets()
        }
        librdkafka.unassign(incremental: librdkafka.isCooperative)
        buffer.revoked(revoked)
        logger.info("partitions revoked", metadata: ["partitions": "\(partitions)"])
    }

    /// librdkafka asks to drop the assignment after a rebalance error; otherwise the group stalls.
    func fail(_ librdkafka: some RebalanceOperations) {
        librdkafka.unassign(incremental: false)
        buffer.revoked(buffer.assignment)
    }

    /// Runs the application's handler and waits for it until `deadline` (blocking the poll thread).
    private func runHandler(_ event: KafkaRebalanceEvent, until deadline: Date) {
        guard let onRebalance else { return }
        let done = DispatchSemaphore(value: 0)
        Task {
            await onRebalance(event)
            done.signal()
        }
        let seconds = max(deadline.timeIntervalSince(now()), 0)
        if done.wait(timeout: .now() + seconds) == .timedOut {
            logger.warning("rebalance handler did not finish within the revocation timeout; continuing")
        }
    }
}
