import BraidCore

/// The sensitivity check of team-draft interleaving against an A/B test on click-through,
/// over one population of users (each a ``UserPropensity`` factor and `sessionsPerUser`
/// sessions, the same for both methods):
///
/// 1. Calibration: simulate `calibrationSessions` interleaved sessions and as many A/B
///    sessions per ``ABArm``, user by user (the arms on common random numbers, so their
///    differences are measured precisely), to learn the win and tie rates, and the mean and
///    variance across users of a user's click-through in each arm, at `margin`.
/// 2. Sample sizes for `power` at `alpha` (``SampleSize``): interleaving from the win rates
///    (sign test on impressions), the A/B test randomized by user from the users'
///    click-through (z-test on users), against the cached ranking alone and against the page
///    with it blended in. Both are counted in sessions.
/// 3. Check: simulate `powerRuns` whole experiments of the interleaving and the cached-arm
///    A/B sizes and count how often each test rejects (should be close to `power`).
/// 4. Null checks: `nullRuns` interleaving experiments with no preference (margin 0); the
///    share the sign test rejects at `alpha` is the false-positive rate (should be close to
///    `alpha`), also credited on every slot for comparison. And `abNullRuns` A/B experiments
///    with no preference: the user-level test's false-positive rate, and the rate of a
///    per-session two-proportion test that ignores that a user's sessions go together.
///
/// Every user and run draws from its own random stream of `seed` (``SimulationRandom``), so
/// the report depends on the seed and the corpus only, not on how work is split. With one
/// session per user and spread 0 it replays the homogeneous model's draws exactly.
public struct SensitivitySimulation: Sendable {
    public let parameters: SensitivityParameters
    public let queries: [QueryRankings]
    /// Parallel tasks (at least 1); does not change the result.
    public let workers: Int

    enum Stream: UInt64 {
        case interleavingCalibration = 1, abCalibration, interleavingPower, abPower, null, abNull
        // SequentialSimulation's.
        case sequentialNull, sequentialPlanned, sequentialDoubled
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
            clickModel: parameters.userClickModel,
            attractiveness: Attractiveness(range: parameters.attractiveness, margin: margin),
            pageSize: parameters.pageSize, start: parameters.start)
    }

    public func run() async throws -> SensitivityReport {
        let p = parameters
        let simulator = try simulator(margin: p.margin)
        let propensity = UserPropensity(spread: p.propensitySpread)
        let perUser = p.sessionsPerUser

        // 1. Calibration, user by user: each user's stream draws her propensity, then her sessions.
        let users = p.calibrationSessions / perUser
        let interleaved = await sum(count: users) { range in
            var counts = OutcomeCounts()
            for user in range {
                var random = SimulationRandom(seed: p.seed, stream: Stream.interleavingCalibration.rawValue, index: UInt64(user))
                let factor = propensity.draw(using: &random)
                for _ in 0..<perUser { counts.add(simulator.interleavedSession(propensity: factor, using: &random).window) }
            }
            return counts
        }
        let clicked = await sum(count: users) { range in
            var metrics = ArmMetrics()
            for user in range {
                // Common random numbers: every arm replays the same user and draws.
                let random = SimulationRandom(seed: p.seed, stream: Stream.abCalibration.rawValue, index: UInt64(user))
                for arm in ABArm.allCases {
                    var draws = random
                    let factor = propensity.draw(using: &draws)
                    var sessions = 0
                    for _ in 0..<perUser { sessions += simulator.abSession(arm, propensity: factor, using: &draws) ? 1 : 0 }
                    // Counts, not shares: integer sums are exact whatever the chunking.
                    metrics[arm].add(Double(sessions))
                }
            }
            return metrics
        }
        let n = Double(users * perUser)
        var interleaving = SensitivityReport.Interleaving(
            winA: Double(interleaved.winA) / n, winB: Double(interleaved.winB) / n, ties: Double(interleaved.ties) / n)
        let k = Double(perUser)
        func abTest(_ treatment: ABArm) -> SensitivityReport.ABTest {
            let control = clicked[.live].scaled(by: 1 / k), treated = clicked[treatment].scaled(by: 1 / k)
            var test = SensitivityReport.ABTest(
                controlRate: control.mean, treatmentRate: treated.mean,
                controlVariance: control.variance, treatmentVariance: treated.variance)
            test.sessions = SampleSize.abTestUnits(
                controlMean: control.mean, treatmentMean: treated.mean, controlVariance: control.variance,
                treatmentVariance: treated.variance, alpha: p.alpha, power: p.power
            ).map { 2 * $0 * perUser }
            return test
        }

        // 2. Sample sizes (A/B: users per arm × 2 × sessions per user, counted in sessions).
        interleaving.sessions = SampleSize.interleaving(winA: interleaving.winA, winB: interleaving.winB, alpha: p.alpha, power: p.power)
        var ab = abTest(.cached)
        let blended = abTest(.blended)

        // 3. Power, checked by whole experiments of those sizes.
        if let sessions = interleaving.sessions, p.powerRuns > 0 {
            let rejected = await sum(count: p.powerRuns) { runs in
                runs.reduce(0) { total, run in
                    let counts = interleavingExperiment(simulator, sessions: sessions, stream: .interleavingPower, run: run)
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
                    total + (abExperiment(simulator, sessions: sessions, stream: .abPower, run: run).userLevel < p.alpha ? 1 : 0)
                }
            }
            ab.empiricalPower = Double(rejected) / Double(p.powerRuns)
        }

        // 4. No preference: how often each test is fooled.
        let indifferent = try self.simulator(margin: 0)
        var null: SensitivityReport.NullCheck?
        if p.nullRuns > 0, let sessions = p.nullSessions ?? interleaving.sessions {
            let falsePositives = await sum(count: p.nullRuns) { runs in
                var counts = FalsePositives()
                for run in runs {
                    let outcome = interleavingExperiment(indifferent, sessions: sessions, stream: .null, run: run)
                    counts.first += outcome.window.pValue < p.alpha ? 1 : 0
                    counts.second += outcome.everySlot.pValue < p.alpha ? 1 : 0
                }
                return counts
            }
            null = SensitivityReport.NullCheck(
                runs: p.nullRuns, sessionsPerRun: sessions,
                falsePositiveRate: Double(falsePositives.first) / Double(p.nullRuns),
                falsePositiveRateEverySlot: Double(falsePositives.second) / Double(p.nullRuns))
        }
        var abNull: SensitivityReport.ABNullCheck?
        if p.abNullRuns > 0, let sessions = ab.sessions {
            let falsePositives = await sum(count: p.abNullRuns) { runs in
                var counts = FalsePositives()
                for run in runs {
                    let pValues = abExperiment(indifferent, sessions: sessions, stream: .abNull, run: run)
                    counts.first += pValues.userLevel < p.alpha ? 1 : 0
                    counts.second += pValues.perSession < p.alpha ? 1 : 0
                }
                return counts
            }
            abNull = SensitivityReport.ABNullCheck(
                runs: p.abNullRuns, sessionsPerRun: sessions,
                falsePositiveRate: Double(falsePositives.first) / Double(p.abNullRuns),
                falsePositiveRatePerSession: Double(falsePositives.second) / Double(p.abNullRuns))
        }
        let control = clicked[.live].scaled(by: 1 / k)
        let sessionVariance = control.mean * (1 - control.mean)
        let icc: Double? = perUser > 1 && sessionVariance > 0
            ? (Double(perUser) * control.variance - sessionVariance) / Double(perUser - 1) / sessionVariance : nil
        return SensitivityReport(
            queries: queries.count, livePageInCachedShare: simulator.livePageInCachedShare, interleaving: interleaving,
            abTest: ab, abBlended: blended, null: null, abNull: abNull, sessionClickICC: icc)
    }

    /// One interleaving experiment: `sessions` sessions of users coming one after another
    /// (each her propensity, then `sessionsPerUser` sessions, the last user fewer), credited
    /// both ways.
    func interleavingExperiment(
        _ simulator: SessionSimulator, sessions: Int, stream: Stream, run: Int
    ) -> (window: PreferenceOutcome, everySlot: PreferenceOutcome) {
        var random = SimulationRandom(seed: parameters.seed, stream: stream.rawValue, index: UInt64(run))
        let propensity = UserPropensity(spread: parameters.propensitySpread)
        var window = PreferenceOutcome(winsA: 0, winsB: 0, ties: 0)
        var everySlot = window
        var done = 0
        while done < sessions {
            let factor = propensity.draw(using: &random)
            for _ in 0..<min(parameters.sessionsPerUser, sessions - done) {
                let outcome = simulator.interleavedSession(propensity: factor, using: &random)
                window.record(outcome.window)
                everySlot.record(outcome.everySlot)
            }
            done += parameters.sessionsPerUser
        }
        return (window, everySlot)
    }

    /// One A/B experiment of `sessions` sessions in all: users (each her propensity, then
    /// `sessionsPerUser` sessions in one arm) alternately assigned to the live arm and the
    /// cached one. Returns the p-values of the user-level z-test and, for comparison, of the
    /// two-proportion test on sessions, which wrongly treats one user's sessions as independent.
    func abExperiment(_ simulator: SessionSimulator, sessions: Int, stream: Stream, run: Int) -> (userLevel: Double, perSession: Double) {
        var random = SimulationRandom(seed: parameters.seed, stream: stream.rawValue, index: UInt64(run))
        let propensity = UserPropensity(spread: parameters.propensitySpread)
        let perUser = parameters.sessionsPerUser
        var users = [UnitMetric(), UnitMetric()]
        var clicks = [0, 0]
        for user in 0..<(sessions / perUser) {
            let arm = user % 2
            let factor = propensity.draw(using: &random)
            var clicked = 0
            for _ in 0..<perUser { clicked += simulator.abSession(arm == 1 ? .cached : .live, propensity: factor, using: &random) ? 1 : 0 }
            users[arm].add(Double(clicked))  // the test does not depend on the scale
            clicks[arm] += clicked
        }
        let trials = users.map { $0.count * perUser }
        return (
            UnitLevelTest.pValue(users[0], users[1]),
            TwoProportionTest.pValue(successes1: clicks[0], trials1: trials[0], successes2: clicks[1], trials2: trials[1]))
    }

    /// Splits 0..<count into `workers` contiguous chunks computed in parallel, each on a thread
    /// of its own (on the cooperative pool, long chunks would hold its threads and stall every
    /// other task of the process), and adds up their results (in chunk order, so the sum
    /// does not depend on timing).
    func sum<Partial: Summable>(count: Int, _ body: @escaping @Sendable (Range<Int>) -> Partial) async -> Partial {
        let chunks = min(workers, max(1, count))
        let bounds = (0...chunks).map { $0 * count / chunks }
        let partials = await withTaskGroup(of: (Int, Partial).self) { group in
            for chunk in 0..<chunks {
                let range = bounds[chunk]..<bounds[chunk + 1]
                group.addTask { (chunk, await runOffPool { body(range) }) }
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

/// Per A/B arm, the users' click-through (sessions with a click ÷ sessions).
struct ArmMetrics: Summable {
    var metrics: [ABArm: UnitMetric] = [:]
    static let zero = ArmMetrics()
    subscript(arm: ABArm) -> UnitMetric {
        get { metrics[arm] ?? UnitMetric() }
        set { metrics[arm] = newValue }
    }
    static func + (lhs: Self, rhs: Self) -> Self {
        ArmMetrics(metrics: lhs.metrics.merging(rhs.metrics, uniquingKeysWith: +))
    }
}

/// Rejections of two tests (or two credit rules) over the same experiments.
struct FalsePositives: Summable {
    var first = 0, second = 0
    static let zero = FalsePositives()
    static func + (lhs: Self, rhs: Self) -> Self {
        FalsePositives(first: lhs.first + rhs.first, second: lhs.second + rhs.second)
    }
}
