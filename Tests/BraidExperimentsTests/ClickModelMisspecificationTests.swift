import BraidContracts
import BraidCore
import BraidExperiments
import BraidTestSupport
import Foundation
import Testing

/// The planner on users who do not cascade: traffic of a position-based model and of a dependent
/// click model is fitted like cascade traffic, the goodness of fit (``ClickCountFit``) must warn
/// on it and stay quiet on the cascade's, and the plan is set against the sessions the true
/// model needs (the sensitivity simulation run with the traffic's own users).
@Suite("planner on misspecified click models", .computeHeavy)
struct ClickModelMisspecificationTests {
    /// 8,000 users of 5 sessions (40,000 page-1 impressions: the goodness of fit's threshold is
    /// 8 ÷ √40,000 = 0.04 here, above its 0.03 floor); a fifth of the round trip's 40,000 users,
    /// to keep the suite within seconds in a debug build.
    static let users = 8_000
    /// Position-based users reading position k with 1 ÷ (k + 1): clearly not a cascade below position 1.
    static let positionBased = PositionBasedClickModel(decay: 1)
    /// Dependent-click users reading on after a click with 0.5 at the top (the default cascade's
    /// 1 − satisfaction) and 0.05 more a rank down to 0.8.
    static let dependent = DependentClickModel(continuation: [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8])

    struct Measured: CustomStringConvertible {
        var model: String
        var fit: UserModelEstimate
        var goodness: ClickCountFit
        /// Sessions the plan (fitted cascade) and the true model need: interleaving, and the A/B test.
        var planned: (interleaving: Int, ab: Int)
        var truth: (interleaving: Int, ab: Int)

        var interleavingRatio: Double { Double(planned.interleaving) / Double(truth.interleaving) }
        var abRatio: Double { Double(planned.ab) / Double(truth.ab) }

        var description: String {
            func fixed(_ value: Double) -> String { String(format: "%.3f", value) }
            return "\(model): goodness_of_fit \(String(format: "%.4f", goodness.totalVariation)) (threshold \(fixed(goodness.threshold))); "
                + "fitted persistence \(fixed(fit.persistence)), satisfaction \(fixed(fit.satisfaction)), spread \(fixed(fit.propensitySpread)); "
                + "plan interleaving \(planned.interleaving) vs truth \(truth.interleaving) (×\(fixed(interleavingRatio))), "
                + "A/B \(planned.ab) vs \(truth.ab) (×\(fixed(abRatio)))"
        }
    }

    /// Simulates the traffic of `model`'s users (seed 1, margin 0, the simulation's defaults
    /// otherwise), fits it, and runs the sensitivity simulation twice at margin 0.3: with the
    /// fitted cascade and with the true users. 40,000 calibration sessions and a large margin keep
    /// the simulations to a second or two each; the sample sizes then carry a few per cent of
    /// noise, below the misspecified models' errors (the cascade's runs share their random
    /// numbers, so its plan and its truth differ by the fit's error alone).
    static func measure(_ model: SimulatedClickModel) async throws -> Measured {
        var truth = SensitivityParameters()
        truth.seed = 1
        truth.margin = 0
        truth.clickModel = model
        let lines = try await CalibrationTests.traffic(truth, users: users)
        let statistics = try await runOffPool { CalibrationTests.log(lines).statistics }
        let fit = try UserModelFit.fit(statistics)

        var base = SensitivityParameters()
        base.seed = 1
        base.margin = 0.3
        base.calibrationSessions = 40_000
        base.powerRuns = 0
        base.nullRuns = 0
        base.abNullRuns = 0
        truth.margin = base.margin
        truth.calibrationSessions = base.calibrationSessions
        truth.powerRuns = 0
        truth.nullRuns = 0
        truth.abNullRuns = 0
        let rankings = try await QueryRankings.load(
            queries: DisjointRankings.queries(10), source: DisjointRankings(), cachedSize: base.cachedSize, pageSize: base.pageSize,
            preferred: base.preferred)
        let plan = try await SensitivitySimulation(parameters: fit.parameters(base), queries: rankings).run()
        let real = try await SensitivitySimulation(parameters: truth, queries: rankings).run()
        return Measured(
            model: model.name, fit: fit, goodness: fit.goodnessOfFit,
            planned: (try #require(plan.interleaving.sessions), try #require(plan.abTest.sessions)),
            truth: (try #require(real.interleaving.sessions), try #require(real.abTest.sessions)))
    }

    @Test func cascadeTrafficFitsWithoutWarningAndIsPlannedAsItsTruth() async throws {
        let cascade = try await Self.measure(.cascade)
        #expect(cascade.goodness.impressions == Self.users * 5)
        #expect(!cascade.goodness.isPoor, "\(cascade)")
        // Well inside the threshold, not just under it.
        #expect(cascade.goodness.totalVariation < cascade.goodness.threshold / 1.5, "\(cascade)")
        #expect(abs(cascade.interleavingRatio - 1) < 0.1 && abs(cascade.abRatio - 1) < 0.1, "\(cascade)")
    }

    @Test func positionBasedTrafficIsFlaggedAndItsPlanIsOff() async throws {
        let positionBased = try await Self.measure(.positionBased(Self.positionBased))
        #expect(positionBased.goodness.isPoor, "\(positionBased)")
        // Positions 0 and 1 alone cannot tell: a position-based user reads position 1 with θ₁
        // after a click or not, which the cascade copies with persistence = 1 − satisfaction = θ₁.
        #expect(abs(positionBased.fit.persistence - 0.5) < 0.05 && abs(positionBased.fit.satisfaction - 0.5) < 0.05, "\(positionBased)")
        // The warning is due: the fitted cascade stops reading too soon, and the plan is off.
        #expect(positionBased.interleavingRatio > 1.15, "\(positionBased)")
    }

    @Test func dependentClickTrafficIsFlagged() async throws {
        let dependent = try await Self.measure(.dependent(Self.dependent))
        // Without a click the DCM user always reads on: the fit finds persistence 1.
        #expect(dependent.fit.persistence > 0.95, "\(dependent)")
        // Measured (seed 1): 0.059 against the threshold 0.04; the plan's interleaving sessions
        // about 10 % above the truth's, within the noise of 40,000 calibration sessions.
        #expect(dependent.goodness.isPoor, "\(dependent)")
    }
}

/// The goodness of fit's prediction on its own: no simulation, so not compute-heavy.
@Suite("goodness of fit of the planner's cascade")
struct ClickCountFitTests {
    /// The prediction the goodness of fit compares with, on cases of known law: users who never
    /// stop read every result (a binomial count of clicks), users who never read on click at
    /// most position 0.
    @Test func predictedClickCountsFollowTheCascade() {
        var statistics = TrafficStatistics()
        statistics.clicksPerPage = [10: [100, 0, 0, 0, 0]]
        let a = 0.25
        func estimate(persistence: Double, satisfaction: Double) -> ClickCountFit {
            UserModelEstimate(
                sessionsPerUser: 1, propensitySpread: 0, persistence: persistence, satisfaction: satisfaction, meanAttractiveness: a,
                statistics: statistics
            ).goodnessOfFit
        }
        let reading = estimate(persistence: 1, satisfaction: 0)
        for k in 0..<4 {
            var share: Double = pow(a, Double(k)) * pow(1 - a, Double(10 - k))
            for j in 0..<k { share *= Double(10 - j) / Double(j + 1) }  // × C(10, k)
            #expect(abs(reading.expected[k] / 100 - share) < 1e-9, "\(k) clicks: \(reading.expected[k] / 100) vs \(share)")
        }
        let leaving = estimate(persistence: 0, satisfaction: 1)
        let shares = leaving.expected.map { $0 / 100 }
        #expect(abs(shares[0] - (1 - a)) < 1e-9 && abs(shares[1] - a) < 1e-9 && shares[2...].allSatisfy { $0 == 0 }, "\(shares)")
        // Every page without a click: a model predicting a quarter of them clicked is far off.
        #expect(reading.impressions == 100 && abs(leaving.totalVariation - a) < 1e-9)
    }

    /// The prediction integrates the user's propensity and the cap of attractiveness at 1 as the
    /// simulation draws them: against 40,000 simulated pages of a spread of 1 and a mean
    /// attractiveness of 0.5 (a result of a user twice as keen as the average is often capped).
    @Test func predictedClickCountsMatchTheSimulatedUsers() {
        var statistics = TrafficStatistics()
        statistics.clicksPerPage = [10: [1, 0, 0, 0, 0]]
        let estimate = UserModelEstimate(
            sessionsPerUser: 1, propensitySpread: 1, persistence: 0.8, satisfaction: 0.4, meanAttractiveness: 0.5, statistics: statistics)
        let predicted = estimate.goodnessOfFit.expected
        let model = CascadeClickModel(persistence: 0.8, satisfaction: 0.4)
        let attractiveness = Attractiveness(range: estimate.attractiveness, margin: 0)
        let propensity = UserPropensity(spread: 1)
        var random = SimulationRandom(seed: 11)
        let pages = 40_000
        var counts = [Int](repeating: 0, count: TrafficStatistics.clickCountCells)
        for _ in 0..<pages {
            let factor = propensity.draw(using: &random)
            let page = (0..<10).map { _ in attractiveness.draw(preferred: false, propensity: factor, using: &random) }
            counts[min(model.clicks(attractiveness: page, using: &random).count, counts.count - 1)] += 1
        }
        for (cell, count) in counts.enumerated() {
            let share = Double(count) / Double(pages)
            // Four standard deviations of a share of 40,000 pages.
            let deviation = (predicted[cell] * (1 - predicted[cell]) / Double(pages)).squareRoot()
            #expect(abs(share - predicted[cell]) < 4 * deviation, "cell \(cell): simulated \(share), predicted \(predicted[cell])")
        }
    }

    /// The event log counts each page-1 impression's distinct clicked positions by its slot
    /// count; an impression whose event has no slot count (an older gateway's) is left out.
    @Test func clicksPerPageAreCountedByTheEventLog() throws {
        let at = Date(timeIntervalSince1970: 1_795_000_000)
        let key = CalibrationTests.codec.userKey(user: "u1", session: nil)
        func token(_ nonce: UInt64) -> ImpressionToken {
            ImpressionToken(
                experiment: "e", offset: 0, teams: [.a, .b, .b, .a, .a, .b], creditWindow: 0..<100, nonce: nonce, issuedAt: 1_795_000_000,
                userKey: key)
        }
        var events: [Data] = []
        for nonce in UInt64(1)...3 { events.append(try #require(ExperimentEvent.make(.impression, token: token(nonce), receivedAt: at)).encoded()) }
        for position in [0, 2, 3, 2, 5] {
            events.append(try #require(ExperimentEvent.make(.click, token: token(1), position: position, receivedAt: at)).encoded())
        }
        events.append(try #require(ExperimentEvent.make(.click, token: token(2), position: 4, receivedAt: at)).encoded())
        var old = try ExperimentEvent.decode(try #require(ExperimentEvent.make(.impression, token: token(4), receivedAt: at)).encoded())
        old.slots = nil
        events.append(old.encoded())
        let statistics = CalibrationTests.log(events).statistics
        #expect(statistics.impressions == 4)
        #expect(statistics.clicksPerPage == [6: [1, 1, 0, 0, 1]], "four positions of impression 1 (one clicked twice), one of 2, none of 3")
    }
}

@Suite("position-based and dependent click models")
struct OtherClickModelTests {
    @Test func extremeParametersGiveTheObviousClicks() {
        var random = SimulationRandom(seed: 1)
        let page = [Double](repeating: 1, count: 6)
        // Position-based: every examined result of attractiveness 1 is clicked, a click stops nothing.
        #expect(PositionBasedClickModel(examination: [1]).clicks(attractiveness: page, using: &random) == Array(0..<6))
        #expect(PositionBasedClickModel(examination: [1, 1, 0]).clicks(attractiveness: page, using: &random) == [0, 1], "past the end: the last θ")
        // Dependent: without a click the user always reads on; after one, λ of that rank.
        #expect(DependentClickModel(continuation: [0]).clicks(attractiveness: [0, 0, 1, 1], using: &random) == [2])
        #expect(DependentClickModel(continuation: [1, 1, 0]).clicks(attractiveness: page, using: &random) == [0, 1, 2])
    }

    @Test func positionBasedClicksAreIndependentAndDecayWithRank() {
        let model = PositionBasedClickModel(decay: 1)
        #expect(model.examination.count == 10 && model.examination[3] == 0.25)
        var random = SimulationRandom(seed: 2)
        let sessions = 100_000
        var clicks = [Int](repeating: 0, count: 4)
        var both = 0
        for _ in 0..<sessions {
            let clicked = model.clicks(attractiveness: [0.5, 0.5, 0.5, 0.5], using: &random)
            for position in clicked { clicks[position] += 1 }
            both += clicked.starts(with: [0, 1]) ? 1 : 0
        }
        for position in 0..<4 {
            let expected = Double(sessions) * 0.5 / Double(position + 1)
            #expect(abs(Double(clicks[position]) - expected) < 5 * expected.squareRoot(), "position \(position): \(clicks[position]) vs \(expected)")
        }
        // Independent: P(0 and 1) = P(0) · P(1) = 0.5 · 0.25.
        let expected = Double(sessions) * 0.125
        #expect(abs(Double(both) - expected) < 5 * expected.squareRoot(), "\(both) vs \(expected)")
    }

    @Test func parametersRejectProbabilitiesOutsideZeroToOne() {
        var parameters = SensitivityParameters()
        parameters.clickModel = .positionBased(PositionBasedClickModel(examination: [1, 1.5]))
        #expect(throws: SensitivityParameterError.self) { try parameters.validate() }
        parameters.clickModel = .dependent(DependentClickModel(continuation: []))
        #expect(throws: SensitivityParameterError.self) { try parameters.validate() }
        parameters.clickModel = .dependent(DependentClickModel(continuation: [0.5]))
        #expect(throws: Never.self) { try parameters.validate() }
        #expect(parameters.userClickModel is DependentClickModel)
        parameters.clickModel = .cascade
        #expect((parameters.userClickModel as? CascadeClickModel) == CascadeClickModel(persistence: 0.9, satisfaction: 0.5))
    }
}
