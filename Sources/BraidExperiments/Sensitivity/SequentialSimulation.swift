import BraidCore

/// Knobs of the sequential check, with the defaults `braid experiment simulate` uses.
public struct SequentialParameters: Sendable, Hashable {
    /// Simulated experiments per case (no preference, the planned margin, twice it); 0: skip.
    public var runs = 2_000
    /// Sessions between looks.
    public var lookEvery = 100
    /// Δ of ``SequentialDesign``.
    public var shape = 0.4
    /// Power the sequential test is designed for at the planned margin. A little above the
    /// fixed-horizon size's 0.8 (which ``SensitivityParameters/power`` sets): a design at
    /// exactly 0.8 shows 0.8 ± 0.009 over 2,000 simulated experiments, below 0.8 half the
    /// time; at 0.82 it costs about 0.025 × the fixed size in expected sessions.
    public var power = 0.82

    public init() {}

    public func validate() throws(SensitivityParameterError) {
        if runs < 0 { throw SensitivityParameterError("sequential runs must not be negative") }
        if !(1...100_000).contains(lookEvery) { throw SensitivityParameterError("look every must be 1 to 100000 sessions") }
        if !(0...0.5).contains(shape) { throw SensitivityParameterError("sequential shape must be 0 to 0.5") }
        if !(power > 0.5 && power < 1) { throw SensitivityParameterError("sequential power must be between 0.5 and 1") }
    }
}

/// What the sequential check measured.
public struct SequentialReport: Sendable, Hashable {
    /// The outcomes of one case's experiments.
    public struct Outcomes: Sendable, Hashable {
        public var runs = 0
        public var a = 0, b = 0, noDifference = 0
        /// Σ min(N_stop, N_max): sessions until the sequential test decided.
        public var sessions = 0
        /// Experiments whose fixed-horizon sign test rejected at α at some look (no-preference case only).
        public var fixedRejections = 0

        public var meanSessions: Double { runs > 0 ? Double(sessions) / Double(runs) : 0 }
    }

    public var design: SequentialDesign
    /// The fixed-horizon sessions for the power at the planned margin (the sensitivity
    /// simulation's interleaving size), which the design and the ratios are built on.
    public var fixedSessions: Int
    /// The ranking the simulated users prefer: the right decision.
    public var preferred: PreferredRanking
    public var null: Outcomes
    public var planned: Outcomes
    /// The true margin twice the planned one.
    public var doubled: Outcomes

    /// Share of no-preference experiments in which the fixed-horizon test, read at every look
    /// up to N_max, said A or B at least once.
    public var peekingFalsePositiveRateFixed: Double { Double(null.fixedRejections) / Double(max(1, null.runs)) }
    /// Share of no-preference experiments the sequential test decided A or B.
    public var peekingFalsePositiveRateSequential: Double { Double(null.a + null.b) / Double(max(1, null.runs)) }
    /// Upper end of the two-sided 95 % Clopper–Pearson interval of that rate.
    public var peekingFalsePositiveRateSequentialUpper: Double {
        ClopperPearson.upper(successes: null.a + null.b, trials: null.runs, confidence: 0.95)
    }

    func correct(_ outcomes: Outcomes) -> Int { preferred == .cached ? outcomes.b : outcomes.a }
    /// Share of experiments at the planned margin that decided for the preferred ranking.
    public var power: Double { Double(correct(planned)) / Double(max(1, planned.runs)) }
    public var powerDoubled: Double { Double(correct(doubled)) / Double(max(1, doubled.runs)) }
    /// Mean sessions to a decision (wrong and undecided runs counted at theirs) ÷ the fixed size.
    public var sessionsOverFixed: Double { planned.meanSessions / Double(fixedSessions) }
    public var sessionsOverFixedDoubled: Double { doubled.meanSessions / Double(fixedSessions) }
}

/// The always-valid sequential test of the interleaving preference, checked on the click model
/// of ``SensitivitySimulation``: with a look every `lookEvery` sessions up to the design's
/// N_max, `runs` experiments with no preference (how often it says A or B, and how often the
/// fixed-horizon sign test read at every look would), at the planned margin and at twice it
/// (sessions to a decision, and how often the decision is right). Users come as in the
/// sensitivity simulation (a propensity each, `sessionsPerUser` sessions one after another).
/// Deterministic given the seed, like it.
public struct SequentialSimulation: Sendable {
    public let sensitivity: SensitivitySimulation
    public let parameters: SequentialParameters
    public let design: SequentialDesign

    /// `fixedSessions`: the interleaving sessions for the power at the planned margin.
    public init(sensitivity: SensitivitySimulation, parameters: SequentialParameters, fixedSessions: Int) throws {
        try parameters.validate()
        self.sensitivity = sensitivity
        self.parameters = parameters
        let p = sensitivity.parameters
        design = try SequentialDesign(
            alpha: p.alpha, power: parameters.power, fixedSessions: fixedSessions, fixedPower: p.power, lookEvery: parameters.lookEvery,
            shape: parameters.shape)
    }

    public func run() async throws -> SequentialReport {
        let margin = sensitivity.parameters.margin
        let (indifferent, preferring, preferringTwice) = (
            try sensitivity.simulator(margin: 0), try sensitivity.simulator(margin: margin), try sensitivity.simulator(margin: 2 * margin)
        )
        let null = await outcomes(indifferent, stream: .sequentialNull, readFixed: true)
        let planned = await outcomes(preferring, stream: .sequentialPlanned, readFixed: false)
        let doubled = await outcomes(preferringTwice, stream: .sequentialDoubled, readFixed: false)
        return SequentialReport(
            design: design, fixedSessions: design.fixedSessions, preferred: sensitivity.parameters.preferred,
            null: null, planned: planned, doubled: doubled)
    }

    func outcomes(_ simulator: SessionSimulator, stream: SensitivitySimulation.Stream, readFixed: Bool) async -> SequentialReport.Outcomes {
        await sensitivity.sum(count: parameters.runs) { runs in
            var outcomes = SequentialReport.Outcomes()
            for run in runs { experiment(simulator, stream: stream, run: run, readFixed: readFixed, into: &outcomes) }
            return outcomes
        }
    }

    /// One experiment, look by look, until the sequential test decides (and, with
    /// `readFixed`, until the fixed-horizon test has said A or B or N_max is reached).
    func experiment(_ simulator: SessionSimulator, stream: SensitivitySimulation.Stream, run: Int, readFixed: Bool, into outcomes: inout SequentialReport.Outcomes) {
        let p = sensitivity.parameters
        var random = SimulationRandom(seed: p.seed, stream: stream.rawValue, index: UInt64(run))
        let propensity = UserPropensity(spread: p.propensitySpread)
        var counts = PreferenceOutcome(winsA: 0, winsB: 0, ties: 0)
        var test = SequentialTest(design: design)
        var fixedRejected = false
        var sessions = 0
        simulation: while sessions < design.maxSessions {
            let factor = propensity.draw(using: &random)
            for _ in 0..<min(p.sessionsPerUser, design.maxSessions - sessions) {
                counts.record(simulator.interleavedSession(propensity: factor, using: &random).window)
                sessions += 1
                guard sessions % design.lookEvery == 0 else { continue }
                test.look(.interleaving(winsA: counts.winsA, winsB: counts.winsB, sessions: sessions))
                if readFixed, !fixedRejected, counts.pValue < p.alpha { fixedRejected = true }
                if test.decision != .keepGoing, !readFixed || fixedRejected { break simulation }
            }
        }
        outcomes.runs += 1
        outcomes.fixedRejections += fixedRejected ? 1 : 0
        outcomes.sessions += (test.decidedAt ?? design.looks) * design.lookEvery
        switch test.decision {
        case .a: outcomes.a += 1
        case .b: outcomes.b += 1
        case .noDifference, .keepGoing: outcomes.noDifference += 1
        }
    }
}

extension SequentialReport.Outcomes: Summable {
    static let zero = Self()

    static func + (lhs: Self, rhs: Self) -> Self {
        var sum = lhs
        sum.runs += rhs.runs
        sum.a += rhs.a
        sum.b += rhs.b
        sum.noDifference += rhs.noDifference
        sum.sessions += rhs.sessions
        sum.fixedRejections += rhs.fixedRejections
        return sum
    }
}
