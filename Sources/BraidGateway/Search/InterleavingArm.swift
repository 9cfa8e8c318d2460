import BraidCore
import BraidRuntime
import BraidSources

/// What one search request interleaves: the secondary ranking, how, and what a miss does.
/// Resolved from configuration per request; sessions of one arm always see the same plan.
public struct InterleavingArm: Sendable, Hashable {
    public enum MissPolicy: String, Sendable, Hashable {
        /// Compute B now (once per key, however many requests miss together), then serve.
        case inline
        /// Publish a materialize request and serve live-only.
        case async
    }

    /// `default` when no experiment arms are configured.
    public var name: String
    public var ranking: String
    public var configuration: InterleavingConfiguration
    public var missPolicy: MissPolicy
    /// Snapshots older than this trigger one (deduplicated) refresh request.
    public var refreshAfterSeconds: Int
    /// False: live-only pages, Redis untouched (`interleaving.enabled`).
    public var enabled: Bool

    public init(
        name: String, ranking: String, configuration: InterleavingConfiguration, missPolicy: MissPolicy, refreshAfterSeconds: Int,
        enabled: Bool = true
    ) {
        self.name = name
        self.enabled = enabled
        self.ranking = ranking
        self.configuration = configuration
        self.missPolicy = missPolicy
        self.refreshAfterSeconds = refreshAfterSeconds
    }

    /// Hash of everything that decides positions, carried in cursors.
    public var configurationHash: UInt64 { configuration.stableHash(ranking: ranking) }
}

/// Resolves the arm of a request from configuration: the experiment arm by a stable hash of
/// the session, then the ranking the request names, if any.
public struct ArmSelector: Sendable {
    private let arms: [(weight: Int, arm: InterleavingArm)]
    private let rankings: [String: BraidConfiguration.RankingSection]

    /// Validated configuration cannot fail here; the error names the key if it was not validated.
    public init(_ configuration: BraidConfiguration) throws(ConfigurationError) {
        let section = configuration.interleaving
        let policy = InterleavingArm.MissPolicy(rawValue: section.missPolicy) ?? .inline
        let armSections = section.arms.isEmpty ? [BraidConfiguration.ArmSection(name: "default", weight: 100)] : section.arms
        var arms: [(Int, InterleavingArm)] = []
        for armSection in armSections {
            let ranking = armSection.ranking ?? section.ranking
            let interleaving: InterleavingConfiguration
            do {
                interleaving = try InterleavingConfiguration(
                    start: armSection.start ?? section.start,
                    maxDocs: armSection.maxDocs ?? section.maxDocs,
                    pattern: InterleavingConfiguration.parsePattern(armSection.pattern ?? section.pattern),
                    mode: InterleavingConfiguration.Mode(rawValue: armSection.mode ?? section.mode) ?? .pattern)
            } catch {
                throw ConfigurationError(message: "interleaving (arm \(armSection.name)): \(error)")
            }
            arms.append((armSection.weight, InterleavingArm(
                name: armSection.name, ranking: ranking, configuration: interleaving, missPolicy: policy,
                refreshAfterSeconds: configuration.rankings[ranking]?.refreshAfterSeconds ?? 3_600, enabled: section.enabled)))
        }
        self.arms = arms
        self.rankings = configuration.rankings
    }

    /// The arm for a session (nil: the first arm), with `ranking` replacing the arm's ranking.
    public func arm(session: String?, ranking: String?) throws(GatewayError) -> InterleavingArm {
        let bucket = session.map { Bucketing.bucket(of: $0, salt: "interleaving") } ?? 0
        var arm = Bucketing.pick(arms, bucket: bucket, weight: \.weight)!.arm
        if let ranking, ranking != arm.ranking {
            guard let section = rankings[ranking] else {
                throw .badRequest(
                    "unknown ranking '\(ranking)'; configured: \(rankings.keys.sorted().joined(separator: ", "))",
                    code: "unknown_ranking")
            }
            arm.ranking = ranking
            arm.refreshAfterSeconds = section.refreshAfterSeconds
        }
        return arm
    }
}
