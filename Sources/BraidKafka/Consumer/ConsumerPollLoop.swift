import CRdKafka
import Logging

/// The consumer's poll thread: subscribes, fetches into the buffer in batches, applies
/// backpressure, and on stop either closes cleanly or abandons the handle.
struct ConsumerPollLoop {
    let handle: RDKafkaHandle
    let callbacks: ConsumerCallbacks
    let poller: PollThread
    let logger: Logger
    /// Messages taken per poll round before they are handed over under one lock.
    let batchSize = 256
    let topicNames = TopicNames()

    func run(topics: [String]) {
        let rk = handle.raw
        // Route all events (rebalances, errors, statistics) through rd_kafka_consumer_poll.
        rd_kafka_poll_set_consumer(rk)
        let subscribed = TopicPartitionList.with(topics.map { TopicPartition(topic: $0, partition: RD_KAFKA_PARTITION_UA) }) {
            rd_kafka_subscribe(rk, $0)
        }
        if subscribed != RD_KAFKA_RESP_ERR_NO_ERROR {
            callbacks.buffer.finish(.failure(.librdkafka(.consumer, subscribed, context: "subscribe to \(topics)")))
            poller.requestStop(.graceful)
        }
        while poller.stopRequest == nil {
            pollRound(rk)
        }
        callbacks.buffer.finish()
        callbacks.pending.removeAll()
        if poller.stopRequest == .abandon {
            handle.destroy(flags: Int32(RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE))
        } else {
            // Runs the revocation (finish, commit) through the rebalance callback, then leaves.
            let closed = rd_kafka_consumer_close(rk)
            if closed != RD_KAFKA_RESP_ERR_NO_ERROR {
                logger.warning("\(KafkaError.librdkafka(.consumer, closed, context: "consumer close"))")
            }
            handle.destroy()
        }
    }

    private func pollRound(_ rk: OpaquePointer) {
        let buffer = callbacks.buffer
        // Full: give the application a moment; if it stays behind, pause fetching so this
        // thread can go on serving rebalances and heartbeats of the group protocol.
        if buffer.isFull, !buffer.isBackpressurePaused, !buffer.waitForSpace(seconds: 1) {
            buffer.fetchAction(stalled: true).apply(rk)
        }
        // While paused for backpressure, come back soon to notice the application caught up.
        var next = rd_kafka_consumer_poll(rk, buffer.isBackpressurePaused ? 10 : 100)
        var taken = 0
        while let message = next {
            accept(message)
            rd_kafka_message_destroy(message)
            taken += 1
            next = taken < batchSize ? rd_kafka_consumer_poll(rk, 0) : nil
        }
        buffer.push(&callbacks.pending)
        buffer.fetchAction(stalled: false).apply(rk)
    }

    private func accept(_ message: UnsafeMutablePointer<rd_kafka_message_t>) {
        let err = message.pointee.err
        if err == RD_KAFKA_RESP_ERR_NO_ERROR {
            callbacks.pending.append(KafkaConsumerMessage(copying: message, topicNames: topicNames))
        } else if err == RD_KAFKA_RESP_ERR__FATAL {
            let error = KafkaError.librdkafka(.consumer, err, context: "consumer failed", isFatal: true)
            logger.critical("\(error)")
            callbacks.buffer.finish(.failure(error))
            poller.requestStop(.graceful)
        } else if err != RD_KAFKA_RESP_ERR__PARTITION_EOF {
            // Transient fetch errors; librdkafka keeps retrying by itself.
            logger.warning("\(KafkaError.librdkafka(.consumer, err, context: "fetch"))")
        }
    }
}

extension ConsumerBuffer.FetchAction {
    /// Pauses and resumes fetching in librdkafka. Poll thread only.
    func apply(_ rk: OpaquePointer) {
        if !pause.isEmpty {
            TopicPartitionList.with(pause) { _ = rd_kafka_pause_partitions(rk, $0) }
        }
        if !resume.isEmpty {
            TopicPartitionList.with(resume) { _ = rd_kafka_resume_partitions(rk, $0) }
        }
    }
}
