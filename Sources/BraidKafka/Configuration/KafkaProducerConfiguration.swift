/// Settings of a ``KafkaProducer``. Defaults suit the local broker and at-least-once work:
/// idempotent, `acks=all`, a short linger so messages batch without adding noticeable latency.
public struct KafkaProducerConfiguration: Sendable {
    /// `bootstrap.servers`: comma-separated `host:port` list.
    public var brokers: String
    public var clientID = "braid"
    /// `enable.idempotence` (implies `acks=all`): no duplicates or reordering on retries.
    public var idempotent = true
    /// `linger.ms`: how long librdkafka waits to fill a batch.
    public var lingerMilliseconds = 5
    /// `message.timeout.ms`: a message not acknowledged by then fails with ``KafkaError/Code/timedOut``.
    public var messageTimeoutMilliseconds = 30_000
    /// How long shutdown waits for queued messages to be delivered.
    public var flushTimeoutMilliseconds = 10_000
    /// `statistics.interval.ms`; `nil` leaves statistics (and their metrics) off.
    public var statisticsIntervalMilliseconds: Int?
    /// Raw librdkafka properties, applied last (they win over the fields above).
    public var properties: [String: String] = [:]

    public init(brokers: String) {
        self.brokers = brokers
    }

    /// Every librdkafka property this configuration sets.
    public var librdkafkaProperties: [String: String] {
        var result = [
            "bootstrap.servers": brokers,
            "client.id": clientID,
            "enable.idempotence": String(idempotent),
            "acks": "all",
            "linger.ms": String(lingerMilliseconds),
            "message.timeout.ms": String(messageTimeoutMilliseconds),
        ]
        if let statisticsIntervalMilliseconds {
            result["statistics.interval.ms"] = String(statisticsIntervalMilliseconds)
        }
        result.merge(properties) { _, raw in raw }
        return result
    }
}
