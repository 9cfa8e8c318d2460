import BraidCore
import BraidExperiments

/// What one search request interleaves: the secondary ranking, how, and what a miss does.
/// Resolved from configuration per request; sessions of one arm always see the same plan.
public struct InterleavingArm: Sendable, Hashable {
    /// `default` when no experiment arms are configured.
    public var name: String
    public var ranking: String
    public var configuration: InterleavingConfiguration
    public var missPolicy: SnapshotMissPolicy
    /// Snapshots older than this trigger one (deduplicated) refresh request.
    public var refreshAfterSeconds: Int
    /// False: live-only pages; Redis holds nothing for them but walk records (`interleaving.enabled`).
    public var enabled: Bool
    /// The ranking's configured snapshot size: the most documents a snapshot read in parallel
    /// with the live query can exclude from it (``SearchService/coldWindow(arm:position:query:)``).
    public var snapshotSize: Int
    /// Non-empty: a team-draft multileave of the live ranking and these cached rankings
    /// (teams 1… in order) instead of `ranking`; their refresh ages by name.
    public var multileave: [String]
    public var multileaveRefreshAfterSeconds: [String: Int]

    public init(
        name: String, ranking: String, configuration: InterleavingConfiguration, missPolicy: SnapshotMissPolicy, refreshAfterSeconds: Int,
        enabled: Bool = true, snapshotSize: Int = 50, multileave: [String] = [], multileaveRefreshAfterSeconds: [String: Int] = [:]
    ) {
        self.name = name
        self.multileave = multileave
        self.multileaveRefreshAfterSeconds = multileaveRefreshAfterSeconds
        self.snapshotSize = snapshotSize
        self.enabled = enabled
        self.ranking = ranking
        self.configuration = configuration
        self.missPolicy = missPolicy
        self.refreshAfterSeconds = refreshAfterSeconds
    }

    /// Hash of everything that decides positions, carried in cursors.
    public var configurationHash: UInt64 {
        guard !multileave.isEmpty else { return configuration.stableHash(ranking: ranking) }
        return multileaveConfiguration.stableHash(rankings: multileave)
    }

    /// `start` and `max_docs` of a multileave arm.
    public var multileaveConfiguration: MultileaveConfiguration {
        // Validated with the same bounds as the interleaving configuration it comes from.
        (try? MultileaveConfiguration(start: configuration.start, maxDocs: configuration.maxDocs)) ?? (try! MultileaveConfiguration())
    }
}

/// Resolves the arm of a request: the experiment arm by a stable hash of the session, then
/// the ranking the request names, if any.
public struct ArmSelector: Sendable {
    /// An arm and its share of sessions, in percent (the shares sum to 100).
    public struct WeightedArm: Sendable {
        public var weight: Int
        public var arm: InterleavingArm

        public init(weight: Int, arm: InterleavingArm) {
            self.weight = weight
            self.arm = arm
        }
    }

    private let arms: [WeightedArm]
    /// Every arm with its weight, in configured order.
    public var weightedArms: [WeightedArm] { arms }
    /// `refresh_after_seconds` of every configured ranking, which requests may name.
    private let refreshAfterSeconds: [String: Int]
    /// `size` of every configured ranking (absent: the arm's own).
    private let snapshotSizes: [String: Int]

    /// - Parameters:
    ///   - arms: at least one arm.
    ///   - refreshAfterSeconds: the refresh age of each ranking a request may name.
    ///   - snapshotSizes: the configured snapshot size of each ranking a request may name.
    public init(arms: [WeightedArm], refreshAfterSeconds: [String: Int], snapshotSizes: [String: Int] = [:]) {
        precondition(!arms.isEmpty, "an arm selector needs at least one arm")
        self.arms = arms
        self.refreshAfterSeconds = refreshAfterSeconds
        self.snapshotSizes = snapshotSizes
    }

    /// The arm for a session (nil: the first arm), with `ranking` replacing the arm's ranking.
    public func arm(session: String?, ranking: String?) throws(GatewayError) -> InterleavingArm {
        let bucket = session.map { Bucketing.bucket(of: $0, salt: "interleaving") } ?? 0
        var arm = Bucketing.pick(arms, bucket: bucket, weight: \.weight)!.arm
        // A multileave arm lists its rankings itself: a requested ranking does not replace them.
        if let ranking, ranking != arm.ranking, arm.multileave.isEmpty {
            guard let refreshAfter = refreshAfterSeconds[ranking] else {
                throw .badRequest(
                    "unknown ranking '\(ranking)'; configured: \(refreshAfterSeconds.keys.sorted().joined(separator: ", "))",
                    code: "unknown_ranking")
            }
            arm.ranking = ranking
            arm.refreshAfterSeconds = refreshAfter
            arm.snapshotSize = snapshotSizes[ranking] ?? arm.snapshotSize
        }
        return arm
    }
}
