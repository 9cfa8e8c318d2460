import BraidConfig
import BraidGateway
import BraidCore

extension BraidConfiguration {
    /// What the console needs of the configuration.
    public var consoleSettings: ConsoleSettings {
        ConsoleSettings(
            requestsTopic: kafka.requestsTopic, deadLetterTopic: kafka.deadLetterTopic, eventsTopic: kafka.eventsTopic,
            consumerGroup: kafka.consumerGroup, eventsConsumerGroup: kafka.eventsConsumerGroup,
            rankings: rankings.map { .init(name: $0.key, size: $0.value.size, refreshAfterSeconds: Int($0.value.refreshAfter.wholeSeconds)) },
            defaultRanking: interleaving.ranking, defaultPerPage: gateway.defaultPerPage, feeds: Array(feeds.keys),
            sampleInterval: console.sampleInterval, samples: console.samples)
    }
}
