import BraidKafka
import BraidRuntime

extension BraidConfiguration.KafkaSection {
    /// The workers' consumer: group `consumer_group` on the requests topic.
    public func workerConsumer(clientID: String = "braid-worker") -> KafkaConsumerConfiguration {
        var configuration = KafkaConsumerConfiguration(brokers: brokers, groupID: consumerGroup, topics: [requestsTopic])
        configuration.clientID = clientID
        configuration.sessionTimeoutMilliseconds = sessionTimeoutMs
        configuration.heartbeatIntervalMilliseconds = heartbeatIntervalMs
        configuration.properties = properties
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
