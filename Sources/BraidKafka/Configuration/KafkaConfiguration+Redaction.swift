/// Raw librdkafka properties may hold credentials (`sasl.password`, `ssl.key.password`, …), so
/// the configurations describe themselves with the properties' names only: in interpolation,
/// to `dump`, and to loggers that describe a whole service.
extension KafkaProducerConfiguration: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "KafkaProducerConfiguration(brokers: \(brokers), clientID: \(clientID), properties: \(properties.keys.sorted()))"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(self, children: ["brokers": brokers, "clientID": clientID, "properties": properties.keys.sorted()], displayStyle: .struct)
    }
}

extension KafkaConsumerConfiguration: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "KafkaConsumerConfiguration(brokers: \(brokers), groupID: \(groupID), topics: \(topics), properties: \(properties.keys.sorted()))"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(
            self, children: ["brokers": brokers, "groupID": groupID, "topics": topics, "properties": properties.keys.sorted()],
            displayStyle: .struct)
    }
}
