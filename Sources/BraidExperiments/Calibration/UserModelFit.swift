import Foundation

/// The user model of the sensitivity simulation fitted to a team's own impressions and clicks
/// (``TrafficStatistics``): sessions per user, the spread of users' click propensity
/// (``UserPropensity``), the cascade's persistence and satisfaction (``CascadeClickModel``) and
/// the mean attractiveness of a result.
///
/// The estimator, by moments of page-1 impressions, closed form:
/// - Team-draft's first round puts the first document of A and the first of B on positions 0
///   and 1 in random order (a coin per impression). That randomization is an intervention on
///   position (intervention harvesting, Agarwal et al., WSDM 2019): both positions show the
///   same pair of documents, so whatever differs between their clicks is examination, not
///   relevance, and no separate randomization experiment is needed. Position 0 is always
///   read, so its click rate c₀ is the mean attractiveness ā of the round's documents.
/// - In the cascade, position 1 is read after no click on 0 with the persistence γ, after a
///   click with 1 − satisfaction s. So, with a₀ and a₁ the attractiveness on positions 0 and 1:
///   P(no click on 0, click on 1) = γ (ā − E[a₀a₁]) and P(click on 0 and 1) = (1 − s) E[a₀a₁].
/// - E[a₀a₁] (two results of one page, drawn independently given the user) equals E[(ā f)²],
///   f the user's propensity factor, which is measured across sessions instead: the share of
///   pairs of one user's sessions that both clicked position 0, q = Σ S(S − 1) ÷ Σ k(k − 1).
///   Hence γ = P(no click on 0, click on 1) ÷ (c₀ − q) and s = 1 − P(click on 0 and 1) ÷ q.
/// - f is log-normal with mean 1 and log standard deviation σ, so E[f²] = exp(σ²) = q ÷ c₀²,
///   and σ = √log(q ÷ c₀²) (0 when users click alike or less than alike).
/// - Sessions per user: page-1 impressions per user key.
///
/// What the clicks cannot tell: the width of the attractiveness range (only its mean changes
/// the click rates, each result's attractiveness being drawn afresh), kept at the default's
/// proportions (0.1–0.4 around 0.25); the cap of attractiveness at 1 is ignored, which biases
/// q slightly low for very active users. The experiment's `interleaving.start` must be 0 for
/// positions 0 and 1 to be a team-draft round; the fit refuses events whose position-0 clicks
/// are (nearly) all of one team.
///
/// The estimator reproduces positions 0 and 1 whatever model the users follow; whether the
/// cascade holds below them is ``UserModelEstimate/goodnessOfFit`` (``ClickCountFit``).
public enum UserModelFit {
    /// Users with two page-1 impressions or more, at least, for the spread to mean anything.
    public static let minimumUsers = 100

    public static func fit(_ statistics: TrafficStatistics) throws(UserModelFitError) -> UserModelEstimate {
        let s = statistics
        guard s.impressions > 0 else { throw UserModelFitError("no page-1 impression with a credit window: nothing to fit") }
        guard s.usersWithTwoSessions >= minimumUsers, s.sessionPairs > 0 else {
            throw UserModelFitError(
                "\(s.usersWithTwoSessions) users have two page-1 impressions or more; the fit needs \(minimumUsers) (impression ids of format version 3 carry the user key)")
        }
        // Team-draft gives position 0 to B in about half the impressions; none or all means
        // positions 0 and 1 are not a drafted round, and the estimator does not apply.
        if s.firstPositionClicks >= minimumUsers {
            let share = Double(s.firstPositionClicksB) / Double(s.firstPositionClicks)
            guard (0.05...0.95).contains(share) else {
                throw UserModelFitError(
                    "B has \(s.firstPositionClicksB) of \(s.firstPositionClicks) clicks on position 0: positions 0 and 1 are not a team-draft round (an arm with interleaving.start above 0, or not team_draft?); plan on events of a team_draft arm with start 0")
            }
        }
        let n = Double(s.impressions)
        let meanAttractiveness = Double(s.clickedFirst) / n
        let product = Double(s.clickedFirstPairs) / Double(s.sessionPairs)
        guard meanAttractiveness > 0, product > 0, product < meanAttractiveness else {
            throw UserModelFitError("too few clicks on position 0 (\(s.clickedFirst) of \(s.impressions) impressions) to fit the model")
        }
        let spread = log(product / (meanAttractiveness * meanAttractiveness)).squareRoot()
        let persistence = Double(s.clickedSecondOnly) / n / (meanAttractiveness - product)
        let satisfaction = 1 - Double(s.clickedBoth) / n / product
        return UserModelEstimate(
            sessionsPerUser: Double(s.userSessions) / Double(max(1, s.users)),
            propensitySpread: spread.isNaN ? 0 : min(3, spread),
            persistence: min(1, max(0, persistence)),
            satisfaction: min(1, max(0, satisfaction)),
            meanAttractiveness: meanAttractiveness,
            statistics: s)
    }
}

/// The fitted user model (``UserModelFit``).
public struct UserModelEstimate: Sendable, Hashable {
    /// Page-1 impressions per user key.
    public var sessionsPerUser: Double
    /// σ of ``UserPropensity``.
    public var propensitySpread: Double
    public var persistence: Double
    public var satisfaction: Double
    /// Click rate of position 0: a result's mean attractiveness (the traffic's own preference included).
    public var meanAttractiveness: Double
    public var statistics: TrafficStatistics

    public init(
        sessionsPerUser: Double, propensitySpread: Double, persistence: Double, satisfaction: Double, meanAttractiveness: Double,
        statistics: TrafficStatistics
    ) {
        self.sessionsPerUser = sessionsPerUser
        self.propensitySpread = propensitySpread
        self.persistence = persistence
        self.satisfaction = satisfaction
        self.meanAttractiveness = meanAttractiveness
        self.statistics = statistics
    }

    /// The attractiveness range of the simulation: mean ``meanAttractiveness``, the width of the
    /// default 0.1–0.4 in proportion (0.4 to 1.6 times the mean), within [0, 1].
    public var attractiveness: ClosedRange<Double> {
        let mean = min(1, max(0, meanAttractiveness))
        let upper = min(1, 1.6 * mean)
        return max(0, 2 * mean - upper)...upper
    }

    /// `base` with the fitted user model in place of its own (sessions per user rounded, at least 1).
    public func parameters(_ base: SensitivityParameters) -> SensitivityParameters {
        var parameters = base
        parameters.sessionsPerUser = min(1_000, max(1, Int(sessionsPerUser.rounded())))
        parameters.propensitySpread = propensitySpread
        parameters.persistence = persistence
        parameters.satisfaction = satisfaction
        parameters.clickModel = .cascade
        parameters.attractiveness = attractiveness
        parameters.calibrationSessions = max(parameters.calibrationSessions, 1_000 * parameters.sessionsPerUser)
        return parameters
    }
}

public struct UserModelFitError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// The round trip of the planner: what was simulated against what was fitted back.
public struct CalibrationCheck: Sendable, Hashable {
    public struct Row: Sendable, Hashable {
        public var name: String
        public var truth: Double
        public var fitted: Double
        /// |fitted − truth| ÷ truth.
        public var relativeError: Double { abs(fitted - truth) / truth }
    }

    public var rows: [Row]

    /// `truth`'s user model against `fitted`. The true mean attractiveness of round 1 is the
    /// range's mean times 1 + margin/2: one of its two documents is the preferred ranking's.
    public init(truth: SensitivityParameters, fitted: UserModelEstimate) {
        let range = truth.attractiveness
        rows = [
            Row(name: "sessions_per_user", truth: Double(truth.sessionsPerUser), fitted: fitted.sessionsPerUser),
            Row(name: "propensity_spread", truth: truth.propensitySpread, fitted: fitted.propensitySpread),
            Row(name: "persistence", truth: truth.persistence, fitted: fitted.persistence),
            Row(name: "satisfaction", truth: truth.satisfaction, fitted: fitted.satisfaction),
            Row(
                name: "mean_attractiveness", truth: (range.lowerBound + range.upperBound) / 2 * (1 + truth.margin / 2),
                fitted: fitted.meanAttractiveness),
        ].filter { $0.truth > 0 }
    }

    /// The worst relative error over the fitted parameters (those whose truth is not 0).
    public var worst: Double { rows.map(\.relativeError).max() ?? 0 }
}
