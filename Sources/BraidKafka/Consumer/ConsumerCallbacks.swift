import CRdKafka
import Dispatch
import Foundation
import Logging

/// Serves the consumer's rebalances, which librdkafka runs inside `rd_kafka_consumer_poll`
/// on the poll thread.
///
/// A revocation gives the application a chance to finish before the partitions move:
/// buffered messages of the revoked partitions are dropped and nothing more of them is handed
/// out, the application's handler runs (it abandons work it will not finish), handed-out
/// messages get until the revocation timeout to be finished or abandoned, the stored offsets
/// (each partition's contiguous finished prefix) are committed synchronously, and only then
/// are the partitions released. So a message whose offset was committed is never delivered
/// to the next owner again, and one left unfinished always is.
final class ConsumerCallbacks: CallbackContext, @unchecked Sendable {
    let buffer: ConsumerBuffer
    private let revocationTimeout: TimeInterval
    private let onRebalance: (@Sendable (KafkaRebalanceEvent) async -> Void)?
    /// Messages fetched in the current poll round, not yet pushed into `buffer`; a
    /// revocation in the middle of a round drops those of the revoked partitions too.
    /// Poll thread only.
    var pending: [KafkaConsumerMessage] = []

    init(
        logger: Logger, statistics: KafkaStatisticsRecorder?, buffer: ConsumerBuffer,
        revocationTimeout: TimeInterval, onRebalance: (@Sendable (KafkaRebalanceEvent) async -> Void)?
    ) {
        self.buffer = buffer
        self.revocationTimeout = revocationTimeout
        self.onRebalance = onRebalance
        super.init(logger: logger, statistics: statistics)
    }

    override func install(on conf: OpaquePointer) {
        super.install(on: conf)
        rd_kafka_conf_set_rebalance_cb(conf, rebalanceCallback)
    }

    fileprivate func rebalance(_ rk: OpaquePointer, _ err: rd_kafka_resp_err_t, _ list: TopicPartitionList.Pointer?) {
        let cooperative = rd_kafka_rebalance_protocol(rk).map { String(cString: $0) } == "COOPERATIVE"
        let partitions = TopicPartitionList.read(list)
        switch err {
        case RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS:
            if cooperative {
                if let error = rd_kafka_incremental_assign(rk, list) {
                    logger.error("\(KafkaError.consuming(error, .consumer, context: "incremental assign"))")
                }
            } else {
                let result = rd_kafka_assign(rk, list)
                if result != RD_KAFKA_RESP_ERR_NO_ERROR {
                    logger.error("\(KafkaError.librdkafka(.consumer, result, context: "assign"))")
                }
            }
            buffer.assigned(partitions)
            // librdkafka fetches newly assigned partitions unpaused: pause again at once those
            // the application paused before a rebalance took them away.
            buffer.fetchAction(stalled: false).apply(rk)
            logger.info("partitions assigned", metadata: ["partitions": "\(partitions)"])
            runHandler(.assigned(partitions), until: Date().addingTimeInterval(revocationTimeout))

        case RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS:
            revoke(rk, partitions, list: list, cooperative: cooperative)

        default:
            // librdkafka asks to drop the assignment after an error; do so, or the group stalls.
            logger.error("rebalance error: \(String(cString: rd_kafka_err2str(err)))")
            rd_kafka_assign(rk, nil)
            buffer.revoked(buffer.assignment)
        }
    }

    private func revoke(_ rk: OpaquePointer, _ partitions: [TopicPartition], list: TopicPartitionList.Pointer?, cooperative: Bool) {
        let revoked = Set(partitions)
        let deadline = Date().addingTimeInterval(revocationTimeout)
        buffer.beginRevocation(of: revoked)
        pending.removeAll { revoked.contains($0.topicPartition) }
        runHandler(.revoked(partitions), until: deadline)
        let unfinished = buffer.waitUntilDone(of: revoked, until: deadline)
        if unfinished > 0 {
            logger.warning(
                "revocation timeout: giving partitions away with unfinished messages; they will be redelivered",
                metadata: ["unfinished": "\(unfinished)"])
        }
        if rd_kafka_assignment_lost(rk) == 0 {
            let result = rd_kafka_commit(rk, nil, 0)
            if result != RD_KAFKA_RESP_ERR_NO_ERROR, result != RD_KAFKA_RESP_ERR__NO_OFFSET {
                logger.warning("\(KafkaError.librdkafka(.commit, result, context: "commit on revocation"))")
            }
        }
        if cooperative {
            if let error = rd_kafka_incremental_unassign(rk, list) {
                logger.error("\(KafkaError.consuming(error, .consumer, context: "incremental unassign"))")
            }
        } else {
            rd_kafka_assign(rk, nil)
        }
        buffer.revoked(revoked)
        logger.info("partitions revoked", metadata: ["partitions": "\(partitions)"])
    }

    /// Runs the application's handler and waits for it (on this poll thread, which may block).
    private func runHandler(_ event: KafkaRebalanceEvent, until deadline: Date) {
        guard let onRebalance else { return }
        let done = DispatchSemaphore(value: 0)
        Task {
            await onRebalance(event)
            done.signal()
        }
        let seconds = max(deadline.timeIntervalSinceNow, 0)
        if done.wait(timeout: .now() + seconds) == .timedOut {
            logger.warning("rebalance handler did not finish within the revocation timeout; continuing")
        }
    }
}

private func rebalanceCallback(
    _ rk: OpaquePointer?, _ err: rd_kafka_resp_err_t, _ list: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?,
    _ opaque: UnsafeMutableRawPointer?
) {
    guard let rk, let callbacks = ConsumerCallbacks.from(opaque) else { return }
    callbacks.rebalance(rk, err, list)
}
