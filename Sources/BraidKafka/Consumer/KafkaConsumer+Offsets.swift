import CRdKafka

extension KafkaConsumer {
    /// Marks a message as finished. Call it for every message taken from ``messages`` once
    /// processing finished (also for messages skipped on purpose), or ``abandon(_:)`` it: a
    /// revocation waits for handed-out messages.
    ///
    /// Messages of one partition may finish in any order. The offset stored for the next
    /// commit is always the partition's lowest offset not finished yet, so a crash redelivers
    /// everything unfinished and never skips a message.
    ///
    /// - Throws: ``KafkaError`` (code ``KafkaError/Code/consumer``) if the message's partition
    ///   was revoked before it finished (the next owner gets it again), or librdkafka refused
    ///   the offset.
    public func storeOffset(_ message: KafkaConsumerMessage) throws {
        let handle = handleForOffsets
        let settlement = try bufferForOffsets.finished(message) { position in
            try handle.withPointer { rk in
                try TopicPartitionList.with([message.topicPartition], offset: { _ in position }) { list in
                    let result = rd_kafka_offsets_store(rk, list)
                    let elementError = list.pointee.elems[0].err
                    let failure = result != RD_KAFKA_RESP_ERR_NO_ERROR ? result : elementError
                    if failure != RD_KAFKA_RESP_ERR_NO_ERROR {
                        throw KafkaError.librdkafka(.consumer, failure, context: "store offset \(position) of \(message.topicPartition)")
                    }
                }
            }
        }
        if settlement == .revoked {
            throw KafkaError(.consumer, "\(message.topicPartition)@\(message.offset) was revoked before it finished; its next owner gets it again")
        }
    }

    /// Gives a handed-out message up without finishing it (shutdown, or its partition is
    /// being revoked): it no longer holds up a revocation, and its partition's committed
    /// offset stays at or below it, so it is delivered again.
    public func abandon(_ message: KafkaConsumerMessage) {
        bufferForOffsets.abandoned(message)
    }

    /// Whether work on a handed-out message can still be committed: its partition is still
    /// assigned to this consumer (in the same assignment) and not being revoked.
    public func isCurrent(_ message: KafkaConsumerMessage) -> Bool {
        bufferForOffsets.isCurrent(message)
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

    /// Stops handing out and fetching these partitions until ``resume(_:)``. Messages of
    /// them already fetched stay buffered, in order. The pause survives rebalances: a
    /// partition revoked and assigned again is paused again. Fetching stops within one poll
    /// round (100 ms); nothing more is handed out from now on.
    public func pause(_ partitions: [TopicPartition]) {
        bufferForOffsets.userPause(partitions)
    }

    /// Hands out and fetches these partitions again.
    public func resume(_ partitions: [TopicPartition]) {
        bufferForOffsets.userResume(partitions)
    }

    /// Partitions paused with ``pause(_:)`` (assigned or not).
    public var pausedPartitions: Set<TopicPartition> { bufferForOffsets.userPausedPartitions }
}
