import Foundation
import Synchronization

/// `GET /v1/experiments/{id}` for a layout experiment (`LayoutExperimentOutcome` in
/// `Schemas/openapi.yaml`): each variant's users and clicks per user, a sample-ratio-mismatch
/// check against the configured weights, and every pair of variants compared per user (the
/// unit of randomization) with the always-valid sequential decision, by Holm's procedure when
/// there are more than two variants.
public struct LayoutExperimentOutcome: Sendable, Hashable, Encodable {
    public struct Variant: Sendable, Hashable, Encodable {
        public var name: String
        public var weight: Int
        /// Distinct users (bucketing units) with a credited event (impression or click) of a
        /// layout of the variant.
        public var users: Int
        /// Distinct sessions named by those layouts' requests.
        public var sessions: Int
        public var impressions: Int
        /// First clicks on each component of each layout impression.
        public var clicks: Int
        public var clicksPerUser: Double
        /// Variance of a user's clicks across the variant's users.
        public var variance: Double

        enum CodingKeys: String, CodingKey {
            case name, weight, users, sessions, impressions, clicks, variance
            case clicksPerUser = "clicks_per_user"
        }
    }

    /// Users per variant against the configured weights: a mismatch (p < 0.001) means the
    /// split or the counting is broken, and no difference read from it can be trusted.
    public struct SampleRatio: Sendable, Hashable, Encodable {
        public var chiSquare: Double
        public var degreesOfFreedom: Int
        public var pValue: Double
        public var mismatch: Bool

        enum CodingKeys: String, CodingKey {
            case mismatch
            case chiSquare = "chi_square"
            case degreesOfFreedom = "degrees_of_freedom"
            case pValue = "p_value"
        }
    }

    /// Two variants compared: `difference` is `second`'s clicks per user minus `first`'s.
    public struct Pair: Sendable, Hashable, Encodable {
        public var first: String
        public var second: String
        public var difference: Double
        /// 95 % interval of the difference (fixed horizon: read it once, at the end).
        public var interval: ClosedRange<Double>?
        /// The two-sided z-test per user (``UnitLevelTest``), fixed horizon.
        public var pValue: Double
        /// The always-valid reading: `A` means `first`, `B` `second`.
        public var sequential: SequentialSummary?

        enum CodingKeys: String, CodingKey {
            case first, second, difference, interval, sequential
            case pValue = "p_value"
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(first, forKey: .first)
            try container.encode(second, forKey: .second)
            try container.encode(difference, forKey: .difference)
            try container.encodeInterval(interval, forKey: .interval)
            try container.encode(pValue, forKey: .pValue)
            try container.encode(sequential, forKey: .sequential)
        }
    }

    public var experiment: String
    public let kind = "layout"
    public var feed: String
    /// `salt=… variants=name:weight,…`: what the experiment runs with.
    public var design: String
    public var variants: [Variant]
    public var sampleRatio: SampleRatio
    public var pairs: [Pair]
    /// The sequential test's design; `correction` is `holm` with more than one pair.
    public var sequential: SequentialOutcome.Design
    public var correction: String
    public var duplicates: Int
    public var late: Int
    /// Events the gateway refused, by reason (as an interleaving outcome's `rejected`).
    public var rejected: [String: Int] = [:]

    enum CodingKeys: String, CodingKey {
        case experiment, kind, feed, design, variants, pairs, sequential, correction, duplicates, late, rejected
        case sampleRatio = "sample_ratio"
    }

    /// Below this, the users per variant are called a mismatch: a check run at every read of
    /// a dashboard must not cry wolf, and a real mismatch soon falls far below it.
    public static let mismatchLevel = 0.001

    /// One variant's counters as stored.
    public struct Counts: Sendable, Hashable {
        public var users = 0
        public var sessions = 0
        public var impressions = 0
        public var clicks = 0
        /// Σ over users of (a user's clicks)².
        public var clickSquares = 0

        public init(users: Int = 0, sessions: Int = 0, impressions: Int = 0, clicks: Int = 0, clickSquares: Int = 0) {
            self.users = users
            self.sessions = sessions
            self.impressions = impressions
            self.clicks = clicks
            self.clickSquares = clickSquares
        }

        public var metric: UnitMetric {
            var metric = UnitMetric()
            metric.count = users
            metric.sum = Double(clicks)
            metric.sumOfSquares = Double(clickSquares)
            return metric
        }
    }
}

/// A look of a pair of variants: both variants' user metrics when it was taken.
public struct LayoutLook: Sendable, Hashable {
    public var look: Int
    public var first: UnitMetric
    public var second: UnitMetric

    public init(look: Int, first: UnitMetric, second: UnitMetric) {
        self.look = look
        self.first = first
        self.second = second
    }

    public var users: Int { first.count + second.count }
    /// Positive when the second variant's users click more.
    public var statistic: SequentialStatistic { .abTest(control: first, treatment: second) }

    /// `<users> <clicks> <click squares>` of the first, then of the second.
    public var stored: String {
        [first, second].map { "\($0.count) \(Int($0.sum)) \(Int($0.sumOfSquares))" }.joined(separator: " ")
    }

    public init?(look: Int, stored: String) {
        let numbers = stored.split(separator: " ").compactMap { Int($0) }
        guard numbers.count == 6, numbers.allSatisfy({ $0 >= 0 }) else { return nil }
        func metric(_ at: Int) -> UnitMetric {
            var metric = UnitMetric()
            metric.count = numbers[at]
            metric.sum = Double(numbers[at + 1])
            metric.sumOfSquares = Double(numbers[at + 2])
            return metric
        }
        self.init(look: look, first: metric(0), second: metric(3))
    }
}

/// The sequential design of a layout experiment and the pure part of its reading.
public struct LayoutExperimentDesign: Sendable {
    public var experiment: String
    public var feed: String
    /// Variant names and weights, in configured order.
    public let names: [String]
    public let weights: [Int]
    public var design: String
    public var margin: Double
    /// What ``sequential`` is solved from.
    private let plan: DesignKey

    /// Solved on first use, once per process for its parameters: its boundaries take hundreds
    /// of numerical integrations, seconds of one core, which a gateway should not spend before
    /// it serves (the gateway's `LayoutDesignSolver` solves them on a thread of its own).
    public var sequential: SequentialDesign { Self.solved(plan) }

    /// Users (of both variants of a pair) a single look at the end would need for `power` at a
    /// standardized difference `margin` when the pair's users split in `shares` (p, 1 − p):
    /// (z₁₋α/₂ + z_power)² / margin² · (1/p + 1/(1 − p)), 4 (z₁₋α/₂ + z_power)² / margin² at 50/50.
    public static func fixedUsers(margin: Double, power: Double, alpha: Double = 0.05, share: Double = 0.5) -> Int {
        let z = Normal.quantile(1 - alpha / 2) + Normal.quantile(power)
        return Int((z * z / (margin * margin) * (1 / share + 1 / (1 - share))).rounded(.up))
    }

    /// Fails like ``ExperimentDesigns`` does: a margin outside (0, 2], a power outside (0.5, 1),
    /// or more than ``ExperimentDesigns/maxLooks`` looks.
    public init(
        experiment: String, feed: String, variants: [(name: String, weight: Int)], design: String, margin: Double, power: Double,
        lookEvery: Int
    ) throws(ExperimentDesigns.DesignError) {
        let path = "feeds.\(feed).experiment"
        guard margin > 0, margin <= 2 else { throw .init(description: "\(path).margin must be above 0 and at most 2 (standard deviations)") }
        guard power > 0.5, power < 1 else { throw .init(description: "\(path).power must be between 0.5 and 1") }
        guard lookEvery >= 1 else { throw .init(description: "\(path).look_every must be at least 1") }
        // One design for every pair, planned for the most uneven pair (it needs the most users).
        let shares = variants.indices.flatMap { i in
            variants.indices.filter { $0 > i }.map { j in Double(variants[i].weight) / Double(max(1, variants[i].weight + variants[j].weight)) }
        }
        let share = shares.map { min($0, 1 - $0) }.min() ?? 0.5
        guard share > 0 else { throw .init(description: "\(path): every variant needs a weight above 0") }
        let fixed = Self.fixedUsers(margin: margin, power: power, share: share)
        guard fixed / lookEvery <= ExperimentDesigns.maxLooks / 2 else {
            throw .init(
                description: "\(path).look_every: \(lookEvery) gives more than \(ExperimentDesigns.maxLooks) looks for margin \(margin) "
                    + "(\(fixed) users at a fixed horizon); look at least every \(fixed / (ExperimentDesigns.maxLooks / 2) + 1)")
        }
        plan = DesignKey(power: power, fixedUsers: fixed, lookEvery: lookEvery)
        self.experiment = experiment
        self.feed = feed
        names = variants.map(\.name)
        weights = variants.map(\.weight)
        self.design = design
        self.margin = margin
    }

    /// Designs already built in this process: a design is a pure function of these, costs
    /// hundreds of numerical integrations, and every gateway a test builds has the demo's.
    private struct DesignKey: Hashable {
        var power: Double
        var fixedUsers: Int
        var lookEvery: Int
    }

    private static let built = Mutex<[DesignKey: SequentialDesign]>([:])

    /// Not under the lock: two first uses at once may both solve it, rather than one thread
    /// wait seconds for the other.
    private static func solved(_ key: DesignKey) -> SequentialDesign {
        if let known = built.withLock({ $0[key] }) { return known }
        let design: SequentialDesign
        do {
            design = try SequentialDesign(power: key.power, fixedSessions: key.fixedUsers, lookEvery: key.lookEvery)
        } catch {
            // The initializer checked what SequentialDesign refuses: a power in (0.5, 1), at
            // least one user and a look every one or more.
            preconditionFailure("a layout experiment's checked parameters were refused: \(error)")
        }
        built.withLock { $0[key] = design }
        return design
    }

    /// Every pair of variants, in configured order (the first of a pair is the earlier one).
    public var pairs: [(Int, Int)] {
        names.indices.flatMap { i in names.indices.filter { $0 > i }.map { (i, $0) } }
    }

    /// The look of pair (i, j) now due, if any: look k once the pair has k × `look_every` users.
    public func dueLook(_ pair: (Int, Int), counts: [LayoutExperimentOutcome.Counts], recorded: [LayoutLook]) -> LayoutLook? {
        let first = counts[pair.0].metric
        let second = counts[pair.1].metric
        let look = min(sequential.looks, (first.count + second.count) / sequential.lookEvery)
        guard look >= 1, look > recorded.map(\.look).max() ?? 0 else { return nil }
        return LayoutLook(look: look, first: first, second: second)
    }

    /// The outcome from the variants' counters and every pair's recorded looks (by pair index).
    public func outcome(
        counts: [LayoutExperimentOutcome.Counts], looks: [[LayoutLook]], duplicates: Int, late: Int, rejected: [String: Int] = [:]
    ) -> LayoutExperimentOutcome {
        precondition(counts.count == names.count && looks.count == pairs.count, "counts per variant and looks per pair")
        let variants = names.indices.map { index in
            let metric = counts[index].metric
            return LayoutExperimentOutcome.Variant(
                name: names[index], weight: weights[index], users: counts[index].users, sessions: counts[index].sessions,
                impressions: counts[index].impressions, clicks: counts[index].clicks, clicksPerUser: metric.mean, variance: metric.variance)
        }
        let ratio = ChiSquare.goodnessOfFit(observed: counts.map(\.users), shares: weights.map(Double.init))
        let tests = looks.map { InterleavingMonitor.testOfLooks(design: sequential, looks: $0.map { ($0.look, $0.statistic) }) }
        let decisions = InterleavingMonitor.decisions(tests, alpha: sequential.alpha)
        let z = Normal.quantile(0.975)
        let pairs = zip(self.pairs, zip(tests, decisions)).enumerated().map { index, entry in
            let ((i, j), (test, decision)) = entry
            let first = counts[i].metric
            let second = counts[j].metric
            let statistic = SequentialStatistic.abTest(control: first, treatment: second)
            let latest = looks[index].first { $0.look == test.looks }
            return LayoutExperimentOutcome.Pair(
                first: names[i], second: names[j], difference: statistic.estimate,
                interval: statistic.standardError.isFinite ? (statistic.estimate - z * statistic.standardError)...(statistic.estimate + z * statistic.standardError) : nil,
                pValue: UnitLevelTest.pValue(first, second),
                sequential: SequentialSummary(
                    decision: decision.rawValue, pValue: test.pValue, interval: test.interval, look: test.looks,
                    decidedSessions: latest?.users ?? 0, decidedAtLook: decision == .keepGoing ? nil : test.decidedAt ?? test.looks,
                    // In standard deviations of a user's clicks, as the design plans it.
                    bound: decision == .noDifference ? margin : nil))
        }
        return LayoutExperimentOutcome(
            experiment: experiment, feed: feed, design: design, variants: variants,
            sampleRatio: .init(
                chiSquare: ratio.statistic, degreesOfFreedom: ratio.degreesOfFreedom, pValue: ratio.pValue,
                mismatch: ratio.pValue < LayoutExperimentOutcome.mismatchLevel),
            pairs: pairs,
            sequential: SequentialOutcome.Design(
                margin: margin, power: sequential.power, alpha: sequential.alpha, lookEvery: sequential.lookEvery, looks: sequential.looks,
                maxSessions: sequential.maxSessions, fixedSessions: sequential.fixedSessions),
            correction: pairs.count > 1 ? "holm" : "none", duplicates: duplicates, late: late, rejected: rejected)
    }
}
