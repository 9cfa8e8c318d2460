import BraidCore
import BraidExperiments
import BraidTestSupport
import Foundation
import Synchronization
import Testing

@Suite("sensitivity simulation", .computeHeavy)
struct SensitivitySimulationTests {
    func load(preferred: PreferredRanking = .cached, pageSize: Int = 10) async throws -> [QueryRankings] {
        try await QueryRankings.load(
            queries: InMemoryRankings.queries, source: InMemoryRankings.sample, cachedSize: 50, pageSize: pageSize, preferred: preferred)
    }

    @Test func rankingsAreLoadedAsTheGatewayWouldAskForThem() async throws {
        let queries = try await load()
        #expect(queries.map(\.query) == ["alpha", "beta", "gamma"], "a query without matches is left out")
        let alpha = try #require(queries.first)
        #expect(alpha.live == (0..<10).map { "alpha-l\($0)" })
        #expect(alpha.cached.count == 50 && alpha.cachedPage == Array(alpha.cached.prefix(10)))
        // A without B: B's ten shared documents are gone from A and from its total.
        #expect(Set(alpha.liveExcludingCached).isDisjoint(with: alpha.cached))
        #expect(alpha.liveExcludingCached.count == 10 && alpha.liveExcludingCachedTotal == 290)
        #expect(alpha.preferredDocuments == Set(alpha.cached))
        let live = try #require(try await load(preferred: .live).first)
        #expect(live.preferredDocuments == Set((0..<50).map { "alpha-l\($0)" }))
    }

    func simulator(margin: Double, preferred: PreferredRanking = .cached, start: Int = 0) async throws -> SessionSimulator {
        try SessionSimulator(
            queries: try await load(preferred: preferred), clickModel: CascadeClickModel(persistence: 0.9, satisfaction: 0.5),
            attractiveness: Attractiveness(range: 0.1...0.4, margin: margin), pageSize: 10, start: start)
    }

    func outcomes(_ simulator: SessionSimulator, sessions: Int, seed: UInt64) -> (window: PreferenceOutcome, everySlot: PreferenceOutcome) {
        var random = SimulationRandom(seed: seed)
        var window = PreferenceOutcome(winsA: 0, winsB: 0, ties: 0)
        var everySlot = window
        for _ in 0..<sessions {
            let outcome = simulator.interleavedSession(using: &random)
            window.record(outcome.window)
            everySlot.record(outcome.everySlot)
        }
        return (window, everySlot)
    }

    @Test func usersWinTheRankingTheyPrefer() async throws {
        let cached = outcomes(try await simulator(margin: 0.5), sessions: 20_000, seed: 1).window
        #expect(cached.winsB > cached.winsA && cached.pValue < 1e-6, "\(cached)")
        let live = outcomes(try await simulator(margin: 0.5, preferred: .live), sessions: 20_000, seed: 1).window
        #expect(live.winsA > live.winsB && live.pValue < 1e-6, "\(live)")
        // A/B: the arm showing the preferred ranking is clicked more.
        let ab = try await simulator(margin: 0.5)
        var random = SimulationRandom(seed: 2)
        var clicked: [ABArm: Int] = [:]
        for _ in 0..<40_000 {
            let draws = random
            for arm in ABArm.allCases {
                var replay = draws
                clicked[arm, default: 0] += ab.abSession(arm, using: &replay) ? 1 : 0
            }
            _ = random.next()
        }
        // Half of the blended page is B's: between the two (common random numbers).
        #expect(clicked[.live]! < clicked[.blended]! && clicked[.blended]! < clicked[.cached]!, "\(clicked)")
        // The sample's live page holds one of B's documents in ten.
        #expect(abs(ab.livePageInCachedShare - 0.1) < 1e-12)
    }

    @Test func withoutPreferenceWindowCreditIsBalancedAndEverySlotCreditIsNot() async throws {
        // start 3: three A-only slots on top of every page.
        let indifferent = outcomes(try await simulator(margin: 0, start: 3), sessions: 20_000, seed: 3)
        #expect(indifferent.window.pValue > 0.01, "\(indifferent.window)")
        #expect(indifferent.everySlot.winsA > indifferent.everySlot.winsB && indifferent.everySlot.pValue < 1e-6, "\(indifferent.everySlot)")
    }

    func parameters(margin: Double = 0.3) -> SensitivityParameters {
        var parameters = SensitivityParameters()
        parameters.margin = margin
        parameters.calibrationSessions = 40_000
        parameters.powerRuns = 120
        parameters.nullRuns = 150
        parameters.abNullRuns = 0
        return parameters
    }

    @Test func reportIsAPureFunctionOfTheSeedWhateverTheWorkers() async throws {
        let queries = try await load()
        let one = try await SensitivitySimulation(parameters: parameters(), queries: queries, workers: 1).run()
        let three = try await SensitivitySimulation(parameters: parameters(), queries: queries, workers: 3).run()
        #expect(one == three)
        var other = parameters()
        other.seed = 2
        #expect(try await SensitivitySimulation(parameters: other, queries: queries, workers: 2).run() != one)
    }

    /// The simulation's chunks run on threads of their own: with more workers than the
    /// cooperative pool has threads, a task of the pool still wakes on time while it computes
    /// (on the pool, its chunks held every pool thread for about half a second at a time, and
    /// the process's timers with them).
    @Test func aSimulationWithMoreWorkersThanCoresLeavesTheCooperativePoolFree() async throws {
        let queries = try await load()
        let workers = ProcessInfo.processInfo.activeProcessorCount + 1
        let clock = ContinuousClock()
        let started = clock.now
        let finished = Atomic(false)
        var parameters = parameters()
        // Chunks of about a second each (calibration): what would hold the pool's threads.
        parameters.calibrationSessions = 200_000
        parameters.powerRuns = 20
        parameters.nullRuns = 20
        let simulation = Task { [parameters] in
            defer { finished.store(true, ordering: .releasing) }
            return try await SensitivitySimulation(parameters: parameters, queries: queries, workers: workers).run()
        }
        var lateness: [Duration] = []
        while !finished.load(ordering: .acquiring) {
            let due = clock.now + .milliseconds(20)
            try await Task.sleep(until: due, clock: clock)
            lateness.append(clock.now - due)
        }
        _ = try await simulation.value
        let computed = clock.now - started
        let worst = lateness.max() ?? .zero
        #expect(computed > .seconds(1), "the simulation took \(computed): too short to occupy the pool")
        #expect(worst < .milliseconds(250), "a 20 ms sleep woke \(worst) late while \(workers) workers computed for \(computed)")
    }

    @Test func interleavingNeedsFewerSessionsAndThePowerIsAsComputed() async throws {
        let report = try await SensitivitySimulation(parameters: parameters(), queries: try await load()).run()
        let interleaved = try #require(report.interleaving.sessions)
        let ab = try #require(report.abTest.sessions)
        #expect(interleaved < ab, "\(report)")
        #expect(report.abOverInterleaving == Double(ab) / Double(interleaved))
        #expect(abs(report.interleaving.winA + report.interleaving.winB + report.interleaving.ties - 1) < 1e-9)
        #expect(report.abTest.treatmentRate > report.abTest.controlRate)
        #expect(report.abBlended.controlRate == report.abTest.controlRate)
        #expect(try #require(report.abBlended.sessions) > ab, "half a page of B is a smaller change than all of it")
        #expect(report.abBlendedOverInterleaving == Double(report.abBlended.sessions!) / Double(interleaved))
        #expect(report.abBlended.empiricalPower == nil, "the formula is checked on the cached arm only")
        // 120 experiments each: 0.8 ± 3 standard deviations (0.037).
        #expect((0.68...0.92).contains(try #require(report.interleaving.empiricalPower)), "\(report)")
        #expect((0.68...0.92).contains(try #require(report.abTest.empiricalPower)), "\(report)")
        let null = try #require(report.null)
        #expect(null.runs == 150 && null.sessionsPerRun == interleaved)
        #expect(null.falsePositiveRate <= 0.1, "\(null)")
    }

    @Test func theNullCheckRunsTheGivenSessionsWithNoPreference() async throws {
        var parameters = parameters(margin: 0.3)
        parameters.nullSessions = 500
        parameters.start = 3
        let report = try await SensitivitySimulation(parameters: parameters, queries: try await load()).run()
        let null = try #require(report.null)
        #expect(null.sessionsPerRun == 500)
        // 150 runs: α = 0.05 ± 3 standard deviations (0.053) at most; every-slot credit is fooled
        // by the three A-only slots on top.
        #expect(null.falsePositiveRate <= 0.11, "\(null)")
        #expect(null.falsePositiveRateEverySlot > 0.5, "\(null)")
    }

    /// One session per user and no spread: the homogeneous model of independent sessions, whose
    /// calibration draws session i of interleaving from stream 1 and of A/B from stream 2 (index
    /// i), sizes the A/B test by the two-proportion formula and runs one session per unit.
    @Test func homogeneousSettingsReplayTheSessionModel() async throws {
        var parameters = parameters()
        parameters.sessionsPerUser = 1
        parameters.propensitySpread = 0
        parameters.powerRuns = 0
        parameters.nullRuns = 0
        let report = try await SensitivitySimulation(parameters: parameters, queries: try await load()).run()
        let simulator = try await simulator(margin: 0.3)
        var wins = (a: 0, b: 0)
        var clicks: [ABArm: Int] = [:]
        let sessions = parameters.calibrationSessions
        for session in 0..<sessions {
            var random = SimulationRandom(seed: 1, stream: 1, index: UInt64(session))
            switch simulator.interleavedSession(using: &random).window {
            case .winA: wins.a += 1
            case .winB: wins.b += 1
            case .tie: break
            }
            let ab = SimulationRandom(seed: 1, stream: 2, index: UInt64(session))
            for arm in ABArm.allCases {
                var draws = ab
                clicks[arm, default: 0] += simulator.abSession(arm, using: &draws) ? 1 : 0
            }
        }
        let n = Double(sessions)
        #expect(report.interleaving.winA == Double(wins.a) / n && report.interleaving.winB == Double(wins.b) / n)
        let control = Double(clicks[.live]!) / n, treatment = Double(clicks[.cached]!) / n
        #expect(report.abTest.controlRate == control && report.abTest.treatmentRate == treatment)
        #expect(abs(report.abTest.controlVariance - control * (1 - control)) < 1e-12)
        #expect(report.abTest.sessions == SampleSize.abTest(controlRate: control, treatmentRate: treatment, alpha: 0.05, power: 0.8))
        #expect(report.abBlended.sessions == SampleSize.abTest(
            controlRate: control, treatmentRate: Double(clicks[.blended]!) / n, alpha: 0.05, power: 0.8))
        #expect(report.sessionClickICC == nil)
    }

    /// Users who differ and keep their arm for ten sessions: a user's sessions are correlated,
    /// the user-level test keeps its level and a per-session test, which takes them for
    /// independent, rejects far too often. Users alike: no correlation.
    @Test func userLevelTestHoldsItsLevelWhereAPerSessionTestDoesNot() async throws {
        var parameters = parameters()
        parameters.sessionsPerUser = 10
        parameters.propensitySpread = 1
        parameters.powerRuns = 0
        parameters.nullRuns = 0
        parameters.abNullRuns = 300
        let queries = try await load()
        let report = try await SensitivitySimulation(parameters: parameters, queries: queries).run()
        #expect(try #require(report.sessionClickICC) > 0.15, "\(report)")
        let abNull = try #require(report.abNull)
        #expect(abNull.runs == 300 && abNull.sessionsPerRun == report.abTest.sessions)
        // 300 runs: α = 0.05 + 3 standard deviations (0.038) at most.
        #expect(abNull.falsePositiveRate <= 0.09, "\(abNull)")
        #expect(abNull.falsePositiveRatePerSession > 0.15, "\(abNull)")
        parameters.propensitySpread = 0
        parameters.abNullRuns = 0
        let alike = try await SensitivitySimulation(parameters: parameters, queries: queries).run()
        #expect(abs(try #require(alike.sessionClickICC)) < 0.03, "\(alike)")
    }

    @Test func badParametersAreRefusedWithAReason() async throws {
        var parameters = SensitivityParameters()
        parameters.power = 1
        #expect(throws: SensitivityParameterError.self) { try SensitivitySimulation(parameters: parameters, queries: [QueryRankings]()) }
        parameters = SensitivityParameters()
        parameters.sessionsPerUser = 0
        #expect(throws: SensitivityParameterError("sessions per user must be 1 to 1000")) { try parameters.validate() }
        parameters = SensitivityParameters()
        parameters.propensitySpread = -0.1
        #expect(throws: SensitivityParameterError("propensity spread must be 0 to 3")) { try parameters.validate() }
        parameters = SensitivityParameters()
        parameters.sessionsPerUser = 500
        #expect(throws: SensitivityParameterError("calibration sessions must be at least 1000 users' sessions")) { try parameters.validate() }
        #expect(throws: SensitivityParameterError("no query has both live and cached results")) {
            try SensitivitySimulation(parameters: SensitivityParameters(), queries: [])
        }
    }
}

@Suite("sequential simulation", .computeHeavy)
struct SequentialSimulationTests {
    func simulation(workers: Int) async throws -> (SequentialSimulation, Int) {
        let queries = try await QueryRankings.load(
            queries: InMemoryRankings.queries, source: InMemoryRankings.sample, cachedSize: 50, pageSize: 10, preferred: .cached)
        var parameters = SensitivityParameters()
        parameters.margin = 0.3
        parameters.calibrationSessions = 40_000
        parameters.powerRuns = 0
        parameters.nullRuns = 0
        parameters.abNullRuns = 0
        let sensitivity = try SensitivitySimulation(parameters: parameters, queries: queries, workers: workers)
        let fixed = try #require(try await sensitivity.run().interleaving.sessions)
        var sequential = SequentialParameters()
        sequential.runs = 300
        sequential.lookEvery = 20
        return (try SequentialSimulation(sensitivity: sensitivity, parameters: sequential, fixedSessions: fixed), fixed)
    }

    @Test func theSequentialTestResistsPeekingAndSavesSessions() async throws {
        let (simulation, fixed) = try await simulation(workers: 2)
        let report = try await simulation.run()
        #expect(report.fixedSessions == fixed && report.design.maxSessions > fixed)
        #expect(report.null.runs == 300 && report.planned.runs == 300 && report.doubled.runs == 300)
        // No preference: the sign test read at every look is fooled far more often than once
        // read (0.05); the sequential test stays under α (0.035 expected; + 3 standard deviations).
        #expect(report.peekingFalsePositiveRateFixed > 0.12, "\(report.null)")
        #expect(report.peekingFalsePositiveRateSequential < 0.075, "\(report.null)")
        #expect(report.peekingFalsePositiveRateSequentialUpper > report.peekingFalsePositiveRateSequential)
        // The planned margin: power 0.82 designed (300 runs: − 3 standard deviations, 0.07), in
        // fewer sessions than the fixed test; twice the margin, far fewer.
        #expect(report.power > 0.74, "\(report.planned)")
        #expect(report.sessionsOverFixed < 0.9, "\(report.planned)")
        #expect(report.sessionsOverFixedDoubled < 0.5 && report.powerDoubled > 0.95, "\(report.doubled)")
        #expect(report.planned.a + report.planned.b + report.planned.noDifference == 300)
    }

    @Test func theSequentialReportIsAPureFunctionOfTheSeed() async throws {
        let one = try await simulation(workers: 1).0.run()
        let three = try await simulation(workers: 3).0.run()
        #expect(one == three)
    }
}
