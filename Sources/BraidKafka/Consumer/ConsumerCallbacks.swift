import CRdKafka
import Foundation
import Logging

/// Serves the consumer's rebalances, which librdkafka runs inside `rd_kafka_consumer_poll`
/// on the poll thread: ``ConsumerRebalancer`` decides what happens, in which order;
/// ``LibrdkafkaRebalance`` makes its calls into librdkafka.
final class ConsumerCallbacks: CallbackContext, @unchecked Sendable {
    let buffer: ConsumerBuffer
    private let rebalancer: ConsumerRebalancer
    /// Messages fetched in the current poll round, not yet pushed into `buffer`; a
    /// revocation in the middle of a round drops those of the revoked partitions too.
    /// Poll thread only.
    var pending: [KafkaConsumerMessage] = []

    init(
        logger: Logger, statistics: KafkaStatisticsRecorder?, buffer: ConsumerBuffer,
        revocationTimeout: TimeInterval, onRebalance: (@Sendable (KafkaRebalanceEvent) async -> Void)?
    ) {
        self.buffer = buffer
        self.rebalancer = ConsumerRebalancer(buffer: buffer, revocationTimeout: revocationTimeout, onRebalance: onRebalance, logger: logger)
        super.init(logger: logger, statistics: statistics)
    }

    override func install(on conf: OpaquePointer) {
        super.install(on: conf)
        rd_kafka_conf_set_rebalance_cb(conf, rebalanceCallback)
    }

    fileprivate func rebalance(_ rk: OpaquePointer, _ err: rd_kafka_resp_err_t, _ list: TopicPartitionList.Pointer?) {
        let partitions = TopicPartitionList.read(list)
        let librdkafka = LibrdkafkaRebalance(rk: rk, list: list, logger: logger)
        switch err {
        case RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS:
            rebalancer.assign(partitions, librdkafka)
        case RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS:
            let revoked = Set(partitions)
            pending.removeAll { revoked.contains($0.topicPartition) }
            rebalancer.revoke(partitions, librdkafka)
        default:
            logger.error("rebalance error: \(String(cString: rd_kafka_err2str(err)))")
            rebalancer.fail(librdkafka)
        }
    }
}

/// A rebalance's calls into librdkafka, on the partition list its callback was given.
struct LibrdkafkaRebalance: RebalanceOperations {
    let rk: OpaquePointer
    let list: TopicPartitionList.Pointer?
    let logger: Logger

    var isCooperative: Bool { rd_kafka_rebalance_protocol(rk).map { String(cString: $0) } == "COOPERATIVE" }
    var isAssignmentLost: Bool { rd_kafka_assignment_lost(rk) != 0 }

    func assign(incremental: Bool) {
        if incremental {
            if let error = rd_kafka_incremental_assign(rk, list) {
                logger.error("\(KafkaError.consuming(error, .consumer, context: "incremental assign"))")
            }
        } else {
            let result = rd_kafka_assign(rk, list)
            if result != RD_KAFKA_RESP_ERR_NO_ERROR {
                logger.error("\(KafkaError.librdkafka(.consumer, result, context: "assign"))")
            }
        }
    }

    func unassign(incremental: Bool) {
        if incremental {
            if let error = rd_kafka_incremental_unassign(rk, list) {
                logger.error("\(KafkaError.consuming(error, .consumer, context: "incremental unassign"))")
            }
        } else {
            rd_kafka_assign(rk, nil)
        }
    }

    func commitStoredOffsets() {
        let result = rd_kafka_commit(rk, nil, 0)
        if result != RD_KAFKA_RESP_ERR_NO_ERROR, result != RD_KAFKA_RESP_ERR__NO_OFFSET {
            logger.warning("\(KafkaError.librdkafka(.commit, result, context: "commit on revocation"))")
        }
    }

    func apply(_ action: ConsumerBuffer.FetchAction) {
        action.apply(rk)
    }
}

private func rebalanceCallback(
    _ rk: OpaquePointer?, _ err: rd_kafka_resp_err_t, _ list: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?,
    _ opaque: UnsafeMutableRawPointer?
) {
    guard let rk, let callbacks = ConsumerCallbacks.from(opaque) else { return }
    callbacks.rebalance(rk, err, list)
}
