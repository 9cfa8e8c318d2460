import BraidKafka
import BraidConfig
import BraidCore

extension BraidConfiguration.KafkaSection {
    /// The workers' consumer: group `consumer_group` on the requests topic.
    public func workerConsumer(clientID: String = "braid-worker") -> KafkaConsumerConfiguration {
        workersConsumer(group: consumerGroup, topic: requestsTopic, clientID: clientID)
    }

    /// The workers' event aggregation: group `events_consumer_group` on the events topic.
    public func eventsConsumer(clientID: String = "braid-worker-events") -> KafkaConsumerConfiguration {
        workersConsumer(group: eventsConsumerGroup, topic: eventsTopic, clientID: clientID)
    }

    /// `braid ops dlq`'s reader of a whole dead-letter topic: a member of `group` (a throwaway
    /// one, so the workers' offsets are never touched) starting at the earliest offset.
    public func deadLetterReader(group: String, topic: String, clientID: String = "braid-ops-dlq") -> KafkaConsumerConfiguration {
        var configuration = consumer(group: group, topic: topic, clientID: clientID)
        configuration.offsetReset = .earliest
        return configuration
    }

    /// A member of `group` on `topic` with what every consumer of the configuration shares:
    /// the session timeout, the heartbeat and `kafka.properties` (a broker behind SASL, or
    /// one with a longer minimum session, needs them for every consumer, not only the workers').
    private func consumer(group: String, topic: String, clientID: String) -> KafkaConsumerConfiguration {
        var configuration = KafkaConsumerConfiguration(brokers: brokers, groupID: group, topics: [topic])
        configuration.clientID = clientID
        configuration.sessionTimeoutMilliseconds = Int(sessionTimeout.wholeMilliseconds)
        configuration.heartbeatIntervalMilliseconds = Int(heartbeatInterval.wholeMilliseconds)
        configuration.properties = properties
        return configuration
    }

    private func workersConsumer(group: String, topic: String, clientID: String) -> KafkaConsumerConfiguration {
        var configuration = consumer(group: group, topic: topic, clientID: clientID)
        // Requests are small and slow to process: small fetches interleave partitions finely,
        // so one partition's backlog does not arrive as one long run.
        configuration.properties = ["max.partition.fetch.bytes": "65536"].merging(properties) { _, configured in configured }
        return configuration
    }

    /// A producer for requests, dead letters or events.
    public func producer(clientID: String) -> KafkaProducerConfiguration {
        var configuration = KafkaProducerConfiguration(brokers: brokers)
        configuration.clientID = clientID
        configuration.properties = properties
        return configuration
    }

    /// A producer of ``producer(clientID:)``: run it in a `ServiceGroup`, or call `shutdown()`,
    /// which flushes.
    public func makeProducer(clientID: String) throws -> KafkaProducer {
        try KafkaProducer(configuration: producer(clientID: clientID))
    }

    /// A consumer of ``deadLetterReader(group:topic:clientID:)``; `close()` it when done.
    public func makeDeadLetterReader(group: String, topic: String) throws -> KafkaConsumer {
        try KafkaConsumer(configuration: deadLetterReader(group: group, topic: topic))
    }

    /// Topic administration and group lag with `kafka.properties` (security settings included).
    public func makeAdmin() throws -> KafkaAdmin {
        try KafkaAdmin(brokers: brokers, properties: properties)
    }
}
