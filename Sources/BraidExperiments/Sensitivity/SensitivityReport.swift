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
        /// Sessions of both arms together for the target power; nil when there is no effect.
        public var sessions: Int?
        /// Share of `powerRuns` experiments of `sessions` sessions whose z-test rejected;
        /// measured for the cached arm only (nil for the blended one).
        public var empiricalPower: Double?
    }

    public struct NullCheck: Sendable, Hashable {
        public var runs: Int
        public var sessionsPerRun: Int
        /// Share of experiments with no preference whose sign test rejected at α, credited
        /// with the credit window.
        public var falsePositiveRate: Double
        /// The same experiments credited on every slot of the page (the rule before the window).
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
