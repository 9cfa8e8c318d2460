import BraidContracts

/// Every knob of the sensitivity simulation, with the defaults `braid experiment simulate`
/// uses (README, "How sensitive"). The rankings come from the corpus; everything
/// else is here.
public struct SensitivityParameters: Sendable, Hashable {
    /// Seeds every random draw: the same seed and corpus give the same figures.
    public var seed: UInt64 = 1
    /// How much more attractive the preferred ranking's documents are: their click
    /// probability is multiplied by 1 + margin.
    public var margin = 0.10
    public var preferred = PreferredRanking.cached
    /// Results on the page a session sees (one page per session).
    public var pageSize = 10
    /// Documents of the cached ranking (B's snapshot, the `featured` ranking's size).
    public var cachedSize = 50
    /// `interleaving.start` of the simulated team-draft arm.
    public var start = 0
    /// Range of a result's base click probability, drawn per session and result.
    public var attractiveness: ClosedRange<Double> = 0.1...0.4
    /// Cascade: P(read on | no click).
    public var persistence = 0.9
    /// Cascade: P(leave | click).
    public var satisfaction = 0.5
    /// The users' click model: the cascade of `persistence` and `satisfaction`, or another
    /// (which then ignores those two), to simulate users the planner's fit does not assume.
    public var clickModel = SimulatedClickModel.cascade
    /// Sessions of one user in an experiment (both methods). A/B tests randomize users: a user
    /// keeps her arm for all of them. 1 with `propensitySpread` 0: the homogeneous model of
    /// independent sessions.
    public var sessionsPerUser = 5
    /// Log standard deviation of a user's click-propensity factor (``UserPropensity``, mean 1,
    /// log-normal); 0: all users alike.
    public var propensitySpread = 0.5
    /// Level of both tests (two-sided).
    public var alpha = 0.05
    /// Power the sample sizes are computed for.
    public var power = 0.8
    /// Sessions simulated to measure the click and win rates the sample sizes come from
    /// (interleaving; A/B uses as many per arm).
    public var calibrationSessions = 400_000
    /// Simulated experiments of the computed size per method, to check the power empirically.
    public var powerRuns = 400
    /// Simulated interleaving experiments with no preference (margin 0), to measure the
    /// false-positive rate at `alpha`.
    public var nullRuns = 1_000
    /// Sessions per null experiment; nil: the interleaving sample size computed at `margin`.
    public var nullSessions: Int?
    /// Simulated A/B experiments of the computed A/B size with no preference, to measure the
    /// false-positive rate of the user-level test and of a naive per-session test.
    public var abNullRuns = 1_000

    public init() {}

    /// The users' click model (``clickModel``), the cascade built from `persistence` and `satisfaction`.
    public var userClickModel: any ClickModel {
        switch clickModel {
        case .cascade: CascadeClickModel(persistence: persistence, satisfaction: satisfaction)
        case .positionBased(let model): model
        case .dependent(let model): model
        }
    }

    public func validate() throws(SensitivityParameterError) {
        func check(_ condition: Bool, _ message: String) throws(SensitivityParameterError) {
            if !condition { throw SensitivityParameterError(message) }
        }
        try check(margin >= 0 && margin <= 10, "margin must be 0 to 10")
        try check(PageSize.range.contains(pageSize), "page size must be \(PageSize.text)")
        try check((1...10_000).contains(cachedSize), "cached size must be 1 to 10000")
        try check(start >= 0, "start must not be negative")
        try check(attractiveness.lowerBound >= 0 && attractiveness.upperBound <= 1, "attractiveness must lie in [0, 1]")
        try check(persistence >= 0 && persistence <= 1, "persistence must be 0 to 1")
        try check(satisfaction >= 0 && satisfaction <= 1, "satisfaction must be 0 to 1")
        try check(clickModel.isValid, "the \(clickModel.name) click model's probabilities must be 0 to 1 (at least one)")
        try check(alpha > 0 && alpha < 1, "alpha must be between 0 and 1")
        try check(power > 0 && power < 1, "power must be between 0 and 1")
        try check((1...1_000).contains(sessionsPerUser), "sessions per user must be 1 to 1000")
        try check(propensitySpread >= 0 && propensitySpread <= 3, "propensity spread must be 0 to 3")
        try check(calibrationSessions >= 1_000 * sessionsPerUser, "calibration sessions must be at least 1000 users' sessions")
        try check(powerRuns >= 0 && nullRuns >= 0 && abNullRuns >= 0, "runs must not be negative")
        if let nullSessions { try check(nullSessions >= 1, "null sessions must be at least 1") }
    }
}

public struct SensitivityParameterError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
