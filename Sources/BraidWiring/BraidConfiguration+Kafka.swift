import BraidKafka
import BraidConfig

extension BraidConfiguration.KafkaSection {
    /// The workers' consumer: group `consumer_group` on the requests topic.
    public func workerConsumer(clientID: String = "braid-worker") -> KafkaConsumerConfiguration {
        consumer(group: consumerGroup, topic: requestsTopic, clientID: clientID)
    }

    /// The workers' event aggregation: group `events_consumer_group` on the events topic.
    public func eventsConsumer(clientID: String = "braid-worker-events") -> KafkaConsumerConfiguration {
        consumer(group: eventsConsumerGroup, topic: eventsTopic, clientID: clientID)
    }

    private func consumer(group: String, topic: String, clientID: String) -> KafkaConsumerConfiguration {
        var configuration = KafkaConsumerConfiguration(brokers: brokers, groupID: group, topics: [topic])
        configuration.clientID = clientID
        configuration.sessionTimeoutMilliseconds = sessionTimeoutMs
        configuration.heartbeatIntervalMilliseconds = heartbeatIntervalMs
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
}
