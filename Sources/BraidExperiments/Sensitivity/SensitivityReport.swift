/// What the sensitivity simulation measured.
public struct SensitivityReport: Sendable, Hashable {
    public struct Interleaving: Sendable, Hashable {
        /// Shares of impressions won by the live ranking (A), by the cached one (B), tied.
        public var winA: Double
        public var winB: Double
        public var ties: Double
        /// Sessions for the target power; nil when there is no effect.
        public var sessions: Int?
        /// Share of `powerRuns` experiments of `sessions` sessions whose sign test rejected.
        public var empiricalPower: Double?
    }

    public struct ABTest: Sendable, Hashable {
        /// Click-through (sessions with a click) of the control (the live ranking alone) and of
        /// the treatment (the cached ranking alone, or the blended page).
        public var controlRate: Double
        public var treatmentRate: Double
        /// Variance across users of a user's click-through (her sessions with a click ÷ her
        /// sessions) in each arm: what the user-level test's sample size comes from.
        public var controlVariance: Double
        public var treatmentVariance: Double
        /// Sessions of both arms together for the target power (users × sessions per user);
        /// nil when there is no effect.
        public var sessions: Int?
        /// Share of `powerRuns` experiments of `sessions` sessions whose user-level z-test
        /// rejected; measured for the cached arm only (nil for the blended one).
        public var empiricalPower: Double?
    }

    public struct ABNullCheck: Sendable, Hashable {
        public var runs: Int
        public var sessionsPerRun: Int
        /// Share of A/B experiments with no preference whose user-level test rejected at α.
        public var falsePositiveRate: Double
        /// The same experiments judged by the two-proportion test on sessions, as if every
        /// session were independent: too many rejections once users differ.
        public var falsePositiveRatePerSession: Double
    }

    public struct NullCheck: Sendable, Hashable {
        public var runs: Int
        public var sessionsPerRun: Int
        /// Share of experiments with no preference whose sign test rejected at α, credited
        /// with the credit window.
        public var falsePositiveRate: Double
        /// The same experiments credited on every slot of the page (no credit window).
        public var falsePositiveRateEverySlot: Double
    }

    public var queries: Int
    /// ``SessionSimulator/livePageInCachedShare``.
    public var livePageInCachedShare: Double
    public var interleaving: Interleaving
    /// The live ranking alone against the cached ranking alone.
    public var abTest: ABTest
    /// The live ranking alone against the page with the cached ranking blended in.
    public var abBlended: ABTest
    public var null: NullCheck?
    public var abNull: ABNullCheck?
    /// Share of a session's click variance that lies between users (the intra-class
    /// correlation of two sessions of one user) in the control arm, estimated from the users'
    /// click-through variance; nil with one session per user.
    public var sessionClickICC: Double?

    /// A/B sessions (rankings alone) ÷ interleaving sessions: how many times fewer sessions
    /// interleaving needs.
    public var abOverInterleaving: Double? { Self.ratio(abTest.sessions, interleaving.sessions) }
    /// The same with the blended page as the A/B treatment.
    public var abBlendedOverInterleaving: Double? { Self.ratio(abBlended.sessions, interleaving.sessions) }

    static func ratio(_ numerator: Int?, _ denominator: Int?) -> Double? {
        guard let numerator, let denominator, denominator > 0 else { return nil }
        return Double(numerator) / Double(denominator)
    }
}
