/// `feeds.<name>.experiment`: the feed's variants measured against each other. Each layout
/// then carries a signed impression id, clicks on its components are credited to its variant,
/// and `GET /v1/experiments/<name>` reports the variants per user.
///
/// A change of `salt` or of the variants' names or weights is refused while the experiment
/// runs: a gateway configured so never reports ready and stops once it has read the stored
/// design from Redis, naming the experiment (users split one way and counted the other would
/// bias the outcome). Naming a new experiment starts one.
public struct LayoutExperimentSettings: Codable, Sendable, Equatable {
    /// The experiment's id.
    public var name: String
    /// Bucketing salt; nil keeps `feed:<feed>`, so users keep the variant they had before the
    /// experiment was named.
    public var salt: String?
    /// The smallest difference in clicks per user worth finding, in standard deviations of a
    /// user's clicks (a standardized effect): the sequential test's planned effect.
    public var margin: Double
    /// The sequential test's power at `margin`.
    public var power: Double
    /// Users (of the two variants compared) between two looks of the sequential test.
    public var lookEvery: Int

    public init(name: String, salt: String? = nil, margin: Double = 0.1, power: Double = 0.8, lookEvery: Int = 100) {
        self.name = name
        self.salt = salt
        self.margin = margin
        self.power = power
        self.lookEvery = lookEvery
    }

    /// The salt users are bucketed with in `feed`.
    public func bucketingSalt(feed: String) -> String { salt ?? FeedDefinition.defaultSalt(feed: feed) }

    enum CodingKeys: String, CodingKey {
        case name, salt, margin, power, lookEvery
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = Self(name: try c.decode(String.self, forKey: .name))
        self.init(
            name: defaults.name, salt: try c.decodeIfPresent(String.self, forKey: .salt),
            margin: try c.decodeIfPresent(Double.self, forKey: .margin) ?? defaults.margin,
            power: try c.decodeIfPresent(Double.self, forKey: .power) ?? defaults.power,
            lookEvery: try c.decodeIfPresent(Int.self, forKey: .lookEvery) ?? defaults.lookEvery)
    }
}

extension FeedDefinition {
    /// The salt of a feed's buckets when no experiment names another.
    public static func defaultSalt(feed: String) -> String { "feed:\(feed)" }

    /// The salt the feed's users are bucketed with.
    public func bucketingSalt(feed: String) -> String { experiment?.bucketingSalt(feed: feed) ?? Self.defaultSalt(feed: feed) }

    /// What a running experiment must keep: the salt and each variant's name and weight, as
    /// one line (stored with the experiment, compared at start).
    public func experimentDesign(feed: String) -> String {
        "salt=\(bucketingSalt(feed: feed)) variants=" + variants.map { "\($0.name):\($0.weight)" }.joined(separator: ",")
    }
}
