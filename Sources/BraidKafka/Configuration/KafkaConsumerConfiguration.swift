/// Settings of a ``KafkaConsumer`` in a consumer group.
///
/// Offsets are stored only when the application calls ``KafkaConsumer/storeOffset(_:)``
/// (`enable.auto.offset.store=false`) and committed periodically (`enable.auto.commit`), on
/// every revocation and on close: at-least-once processing.
public struct KafkaConsumerConfiguration: Sendable {
    /// Where a group with no committed offset starts (`auto.offset.reset`).
    public enum OffsetReset: String, Sendable {
        case earliest, latest
    }

    /// `bootstrap.servers`: comma-separated `host:port` list.
    public var brokers: String
    /// `group.id`.
    public var groupID: String
    /// Topics to subscribe to.
    public var topics: [String]
    public var clientID = "braid"
    /// `session.timeout.ms`: how long the group waits for a silent member before reassigning
    /// its partitions. Short by default so the local broker rebalances quickly.
    public var sessionTimeoutMilliseconds = 6_000
    /// `heartbeat.interval.ms`.
    public var heartbeatIntervalMilliseconds = 300
    public var offsetReset = OffsetReset.earliest
    /// `auto.commit.interval.ms`: how often stored offsets are committed.
    public var autoCommitIntervalMilliseconds = 1_000
    /// Messages fetched ahead of the application. When the buffer stays full for a second,
    /// fetching pauses until the application drained half of it.
    public var maxBufferedMessages = 5_000
    /// Most messages of one partition fetched and not committed yet (buffered, being
    /// processed, or finished above an unfinished one). At the cap nothing more of the
    /// partition is handed out and its fetching pauses until it is below half. Bounds what one
    /// partition holds in memory and what a crash redelivers.
    public var maxReadAheadPerPartition = 10_000
    /// On revocation, how long to wait for handed-out messages to have their offsets stored
    /// before giving their partitions away anyway (they are then redelivered elsewhere).
    public var revocationTimeoutMilliseconds = 10_000
    /// `statistics.interval.ms`; `nil` leaves statistics (and their metrics) off.
    public var statisticsIntervalMilliseconds: Int?
    /// Raw librdkafka properties, applied last (they win over the fields above).
    public var properties: [String: String] = [:]

    public init(brokers: String, groupID: String, topics: [String]) {
        self.brokers = brokers
        self.groupID = groupID
        self.topics = topics
    }

    /// Every librdkafka property this configuration sets.
    public var librdkafkaProperties: [String: String] {
        var result = [
            "bootstrap.servers": brokers,
            "group.id": groupID,
            "client.id": clientID,
            "session.timeout.ms": String(sessionTimeoutMilliseconds),
            "heartbeat.interval.ms": String(heartbeatIntervalMilliseconds),
            "auto.offset.reset": offsetReset.rawValue,
            "enable.auto.commit": "true",
            "auto.commit.interval.ms": String(autoCommitIntervalMilliseconds),
            "enable.auto.offset.store": "false",
            // Eager assignors: the rebalance callback revokes everything, then assigns.
            "partition.assignment.strategy": "range,roundrobin",
        ]
        if let statisticsIntervalMilliseconds {
            result["statistics.interval.ms"] = String(statisticsIntervalMilliseconds)
        }
        result.merge(properties) { _, raw in raw }
        return result
    }
}
