import BraidCore

/// The sensitivity check of team-draft interleaving against an A/B test on click-through:
///
/// 1. Calibration: simulate `calibrationSessions` interleaved sessions and as many A/B
///    sessions per ``ABArm`` (the arms on common random numbers, so their differences are
///    measured precisely) to learn the win, tie and click-through rates at `margin`.
/// 2. Sample sizes for `power` at `alpha` from those rates (``SampleSize``): interleaving,
///    the A/B test of the live ranking against the cached one alone, and against the page
///    with the cached ranking blended in.
/// 3. Check: simulate `powerRuns` whole experiments of the interleaving and the cached-arm
///    A/B sizes and count how often each test rejects (should be close to `power`).
/// 4. Null check: `nullRuns` interleaving experiments with no preference (margin 0); the
///    share the sign test rejects at `alpha` is the false-positive rate (should be close to
///    `alpha`), also credited on every slot for comparison.
///
/// Every session and run draws from its own random stream of `seed` (``SimulationRandom``),
/// so the report depends on the seed and the corpus only, not on how work is split.
public struct SensitivitySimulation: Sendable {
    public let parameters: SensitivityParameters
    public let queries: [QueryRankings]
    /// Parallel tasks (at least 1); does not change the result.
    public let workers: Int

    enum Stream: UInt64 {
        case interleavingCalibration = 1, abCalibration, interleavingPower, abPower, null
    }

    public init(parameters: SensitivityParameters, queries: [QueryRankings], workers: Int = 2) throws {
        try parameters.validate()
        guard !queries.isEmpty else { throw SensitivityParameterError("no query has both live and cached results") }
        self.parameters = parameters
        self.queries = queries
        self.workers = max(1, workers)
    }

    func simulator(margin: Double) throws -> SessionSimulator {
        try SessionSimulator(
            queries: queries,
            clickModel: CascadeClickModel(persistence: parameters.persistence, satisfaction: parameters.satisfaction),
            attractiveness: Attractiveness(range: parameters.attractiveness, margin: margin),
            pageSize: parameters.pageSize, start: parameters.start)
    }

    public func run() async throws -> SensitivityReport {
        let p = parameters
        let simulator = try simulator(margin: p.margin)

        // 1. Calibration.
        let interleaved = await sum(count: p.calibrationSessions) { range in
            var counts = OutcomeCounts()
            for session in range {
                var random = SimulationRandom(seed: p.seed, stream: Stream.interleavingCalibration.rawValue, index: UInt64(session))
                counts.add(simulator.interleavedSession(using: &random).window)
            }
            return counts
        }
        let clicked = await sum(count: p.calibrationSessions) { range in
            var counts = ClickCounts()
            for session in range {
                // Common random numbers: every arm replays the same draws.
                let random = SimulationRandom(seed: p.seed, stream: Stream.abCalibration.rawValue, index: UInt64(session))
                for arm in ABArm.allCases {
                    var draws = random
                    counts[arm] += simulator.abSession(arm, using: &draws) ? 1 : 0
                }
            }
            return counts
        }
        let n = Double(p.calibrationSessions)
        var interleaving = SensitivityReport.Interleaving(
            winA: Double(interleaved.winA) / n, winB: Double(interleaved.winB) / n, ties: Double(interleaved.ties) / n)
        var ab = SensitivityReport.ABTest(controlRate: Double(clicked[.live]) / n, treatmentRate: Double(clicked[.cached]) / n)
        var blended = SensitivityReport.ABTest(controlRate: Double(clicked[.live]) / n, treatmentRate: Double(clicked[.blended]) / n)

        // 2. Sample sizes.
        interleaving.sessions = SampleSize.interleaving(winA: interleaving.winA, winB: interleaving.winB, alpha: p.alpha, power: p.power)
        ab.sessions = SampleSize.abTest(controlRate: ab.controlRate, treatmentRate: ab.treatmentRate, alpha: p.alpha, power: p.power)
        blended.sessions = SampleSize.abTest(controlRate: blended.controlRate, treatmentRate: blended.treatmentRate, alpha: p.alpha, power: p.power)

        // 3. Power, checked by whole experiments of those sizes.
        if let sessions = interleaving.sessions, p.powerRuns > 0 {
            let rejected = await sum(count: p.powerRuns) { runs in
                runs.reduce(0) { total, run in
                    let counts = Self.interleavingExperiment(simulator, sessions: sessions, seed: p.seed, stream: .interleavingPower, run: run)
                    return total + (counts.window.pValue < p.alpha ? 1 : 0)
                }
            }
            interleaving.empiricalPower = Double(rejected) / Double(p.powerRuns)
        }
        // The blended arm's sample size comes from the same formula; checking it by whole
        // experiments too would cost many times the rest (its effect is a fraction of the
        // cached arm's) and tell nothing the cached arm's check does not.
        if let sessions = ab.sessions, p.powerRuns > 0 {
            let rejected = await sum(count: p.powerRuns) { runs in
                runs.reduce(0) { total, run in
                    total + (Self.abExperiment(simulator, treatment: .cached, sessions: sessions, seed: p.seed, run: run) < p.alpha ? 1 : 0)
                }
            }
            ab.empiricalPower = Double(rejected) / Double(p.powerRuns)
        }

        // 4. No preference: how often the sign test is fooled.
        var null: SensitivityReport.NullCheck?
        if p.nullRuns > 0, let sessions = p.nullSessions ?? interleaving.sessions {
            let indifferent = try self.simulator(margin: 0)
            let falsePositives = await sum(count: p.nullRuns) { runs in
                var counts = FalsePositives()
                for run in runs {
                    let outcome = Self.interleavingExperiment(indifferent, sessions: sessions, seed: p.seed, stream: .null, run: run)
                    counts.window += outcome.window.pValue < p.alpha ? 1 : 0
                    counts.everySlot += outcome.everySlot.pValue < p.alpha ? 1 : 0
                }
                return counts
            }
            null = SensitivityReport.NullCheck(
                runs: p.nullRuns, sessionsPerRun: sessions,
                falsePositiveRate: Double(falsePositives.window) / Double(p.nullRuns),
                falsePositiveRateEverySlot: Double(falsePositives.everySlot) / Double(p.nullRuns))
        }
        return SensitivityReport(
            queries: queries.count, livePageInCachedShare: simulator.livePageInCachedShare, interleaving: interleaving,
            abTest: ab, abBlended: blended, null: null)
    }

    /// One interleaving experiment: `sessions` sessions, credited both ways.
    static func interleavingExperiment(
        _ simulator: SessionSimulator, sessions: Int, seed: UInt64, stream: Stream, run: Int
    ) -> (window: PreferenceOutcome, everySlot: PreferenceOutcome) {
        var random = SimulationRandom(seed: seed, stream: stream.rawValue, index: UInt64(run))
        var window = PreferenceOutcome(winsA: 0, winsB: 0, ties: 0)
        var everySlot = window
        for _ in 0..<sessions {
            let outcome = simulator.interleavedSession(using: &random)
            window.record(outcome.window)
            everySlot.record(outcome.everySlot)
        }
        return (window, everySlot)
    }

    /// One A/B experiment of `sessions` sessions in all, alternately assigned to the live arm
    /// and `treatment`; returns the z-test's p-value.
    static func abExperiment(_ simulator: SessionSimulator, treatment: ABArm, sessions: Int, seed: UInt64, run: Int) -> Double {
        var random = SimulationRandom(seed: seed, stream: Stream.abPower.rawValue, index: UInt64(run))
        var clicks = [0, 0]
        var trials = [0, 0]
        for session in 0..<sessions {
            let arm = session % 2
            trials[arm] += 1
            clicks[arm] += simulator.abSession(arm == 1 ? treatment : .live, using: &random) ? 1 : 0
        }
        return TwoProportionTest.pValue(successes1: clicks[0], trials1: trials[0], successes2: clicks[1], trials2: trials[1])
    }

    /// Splits 0..<count into `workers` contiguous chunks computed in parallel, and adds up
    /// their results (in chunk order, so the sum does not depend on timing).
    func sum<Partial: Summable>(count: Int, _ body: @escaping @Sendable (Range<Int>) -> Partial) async -> Partial {
        let chunks = min(workers, max(1, count))
        let bounds = (0...chunks).map { $0 * count / chunks }
        let partials = await withTaskGroup(of: (Int, Partial).self) { group in
            for chunk in 0..<chunks {
                group.addTask { (chunk, body(bounds[chunk]..<bounds[chunk + 1])) }
            }
            var partials: [(Int, Partial)] = []
            for await partial in group { partials.append(partial) }
            return partials
        }
        return partials.sorted { $0.0 < $1.0 }.map(\.1).reduce(Partial.zero, +)
    }
}

protocol Summable: Sendable {
    static var zero: Self { get }
    static func + (lhs: Self, rhs: Self) -> Self
}

extension Int: Summable {}

struct OutcomeCounts: Summable {
    var winA = 0, winB = 0, ties = 0
    static let zero = OutcomeCounts()
    mutating func add(_ outcome: TeamDraftOutcome) {
        switch outcome {
        case .winA: winA += 1
        case .winB: winB += 1
        case .tie: ties += 1
        }
    }
    static func + (lhs: Self, rhs: Self) -> Self {
        OutcomeCounts(winA: lhs.winA + rhs.winA, winB: lhs.winB + rhs.winB, ties: lhs.ties + rhs.ties)
    }
}

/// Sessions with a click per A/B arm.
struct ClickCounts: Summable {
    var counts: [ABArm: Int] = [:]
    static let zero = ClickCounts()
    subscript(arm: ABArm) -> Int {
        get { counts[arm] ?? 0 }
        set { counts[arm] = newValue }
    }
    static func + (lhs: Self, rhs: Self) -> Self {
        ClickCounts(counts: lhs.counts.merging(rhs.counts, uniquingKeysWith: +))
    }
}

struct FalsePositives: Summable {
    var window = 0, everySlot = 0
    static let zero = FalsePositives()
    static func + (lhs: Self, rhs: Self) -> Self {
        FalsePositives(window: lhs.window + rhs.window, everySlot: lhs.everySlot + rhs.everySlot)
    }
}
