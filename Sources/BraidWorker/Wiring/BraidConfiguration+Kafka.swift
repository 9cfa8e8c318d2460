import BraidKafka
import BraidRuntime

extension BraidConfiguration.KafkaSection {
    /// The workers' consumer: group `consumer_group` on the requests topic.
    public func workerConsumer(clientID: String = "braid-worker") -> KafkaConsumerConfiguration {
        var configuration = KafkaConsumerConfiguration(brokers: brokers, groupID: consumerGroup, topics: [requestsTopic])
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
