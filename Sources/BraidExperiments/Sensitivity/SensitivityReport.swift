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
        /// Click-through (sessions with a click) of the live ranking and of the cached one.
        public var controlRate: Double
        public var treatmentRate: Double
        /// Sessions of both arms together for the target power; nil when there is no effect.
        public var sessions: Int?
        /// Share of `powerRuns` experiments of `sessions` sessions whose z-test rejected.
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
    public var interleaving: Interleaving
    public var abTest: ABTest
    public var null: NullCheck?

    /// A/B sessions ÷ interleaving sessions: how many times fewer sessions interleaving needs.
    public var abOverInterleaving: Double? {
        guard let ab = abTest.sessions, let interleaved = interleaving.sessions, interleaved > 0 else { return nil }
        return Double(ab) / Double(interleaved)
    }
}
