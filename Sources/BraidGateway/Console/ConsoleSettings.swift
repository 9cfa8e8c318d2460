/// What the console needs to know of the configuration (BraidWiring fills it in).
public struct ConsoleSettings: Sendable {
    public var requestsTopic: String
    public var deadLetterTopic: String
    public var eventsTopic: String
    public var consumerGroup: String
    public var eventsConsumerGroup: String
    /// Every configured ranking with its refresh age and snapshot size.
    public var rankings: [Ranking]
    public var defaultRanking: String
    public var defaultPerPage: Int
    public var feeds: [String]
    public var sampleInterval: Duration
    public var samples: Int

    public struct Ranking: Sendable, Hashable {
        public var name: String
        public var size: Int
        public var refreshAfterSeconds: Int

        public init(name: String, size: Int, refreshAfterSeconds: Int) {
            self.name = name
            self.size = size
            self.refreshAfterSeconds = refreshAfterSeconds
        }
    }

    public init(
        requestsTopic: String, deadLetterTopic: String, eventsTopic: String, consumerGroup: String,
        eventsConsumerGroup: String, rankings: [Ranking], defaultRanking: String, defaultPerPage: Int, feeds: [String],
        sampleInterval: Duration, samples: Int
    ) {
        self.requestsTopic = requestsTopic
        self.deadLetterTopic = deadLetterTopic
        self.eventsTopic = eventsTopic
        self.consumerGroup = consumerGroup
        self.eventsConsumerGroup = eventsConsumerGroup
        self.rankings = rankings.sorted { $0.name < $1.name }
        self.defaultRanking = defaultRanking
        self.defaultPerPage = defaultPerPage
        self.feeds = feeds.sorted()
        self.sampleInterval = sampleInterval
        self.samples = samples
    }
}
