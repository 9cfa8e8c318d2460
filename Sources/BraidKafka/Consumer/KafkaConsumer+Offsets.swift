import CRdKafka

extension KafkaConsumer {
    /// Marks a message as done: its offset (+1) is stored for the next commit. Call it for
    /// every message taken from ``messages`` once processing finished (also for messages
    /// skipped on purpose), since a revocation waits for handed-out messages.
    ///
    /// - Throws: ``KafkaError`` if the partition is no longer assigned (it was revoked after
    ///   the revocation timeout; the message will be redelivered to the new owner).
    public func storeOffset(_ message: KafkaConsumerMessage) throws {
        // Counted as done only after the store, so a revocation never commits before it.
        defer { bufferForOffsets.markDone(message) }
        try handleForOffsets.withPointer { rk in
            try TopicPartitionList.with([message.topicPartition], offset: { _ in message.offset + 1 }) { list in
                let result = rd_kafka_offsets_store(rk, list)
                let elementError = list.pointee.elems[0].err
                let failure = result != RD_KAFKA_RESP_ERR_NO_ERROR ? result : elementError
                if failure != RD_KAFKA_RESP_ERR_NO_ERROR {
                    throw KafkaError.librdkafka(.consumer, failure, context: "store offset of \(message.topicPartition)@\(message.offset)")
                }
            }
        }
    }

    /// Commits the stored offsets now and waits for the broker.
    public func commit() async throws {
        let handle = handleForOffsets
        try await BlockingCalls.run {
            try handle.withPointer { rk in
                let result = rd_kafka_commit(rk, nil, 0)
                if result != RD_KAFKA_RESP_ERR_NO_ERROR, result != RD_KAFKA_RESP_ERR__NO_OFFSET {
                    throw KafkaError.librdkafka(.commit, result, context: "commit")
                }
            }
        }
    }

    /// Stops fetching these partitions until ``resume(_:)`` (backpressure per partition).
    public func pause(_ partitions: [TopicPartition]) throws {
        bufferForOffsets.userPause(partitions)
        try handleForOffsets.withPointer { rk in
            try TopicPartitionList.with(partitions) { list in
                let result = rd_kafka_pause_partitions(rk, list)
                if result != RD_KAFKA_RESP_ERR_NO_ERROR { throw KafkaError.librdkafka(.consumer, result, context: "pause") }
            }
        }
    }

    /// Fetches these partitions again.
    public func resume(_ partitions: [TopicPartition]) throws {
        let now = bufferForOffsets.userResume(partitions)
        guard !now.isEmpty else { return }
        try handleForOffsets.withPointer { rk in
            try TopicPartitionList.with(now) { list in
                let result = rd_kafka_resume_partitions(rk, list)
                if result != RD_KAFKA_RESP_ERR_NO_ERROR { throw KafkaError.librdkafka(.consumer, result, context: "resume") }
            }
        }
    }
}
