import BraidConfig
import BraidGateway

extension BraidConfiguration {
    /// What the console needs of the configuration.
    public var consoleSettings: ConsoleSettings {
        ConsoleSettings(
            requestsTopic: kafka.requestsTopic, deadLetterTopic: kafka.deadLetterTopic, eventsTopic: kafka.eventsTopic,
            consumerGroup: kafka.consumerGroup, eventsConsumerGroup: kafka.eventsConsumerGroup,
            rankings: rankings.map { .init(name: $0.key, size: $0.value.size, refreshAfterSeconds: $0.value.refreshAfterSeconds) },
            defaultRanking: interleaving.ranking, defaultPerPage: gateway.defaultPerPage, feeds: Array(feeds.keys),
            sampleInterval: .milliseconds(console.sampleIntervalMs), samples: console.samples)
    }
}
