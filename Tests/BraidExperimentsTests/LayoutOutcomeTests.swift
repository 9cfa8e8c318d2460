import BraidExperiments
import Foundation
import Testing

@Suite("Layout experiment outcomes (pure)")
struct LayoutOutcomeTests {
    @Test func chiSquareTailMatchesTheTables() {
        // 95th percentiles of χ² with 1, 2, 3 and 10 degrees of freedom, and 99.9th with 1.
        for (x, k, p) in [(3.841, 1, 0.05), (5.991, 2, 0.05), (7.815, 3, 0.05), (18.307, 10, 0.05), (10.828, 1, 0.001)] {
            #expect(abs(ChiSquare.survival(x, degreesOfFreedom: k) - p) < 2e-4, "χ²(\(k)) ≥ \(x)")
        }
        #expect(ChiSquare.survival(0, degreesOfFreedom: 3) == 1)
    }

    func design(_ variants: [(String, Int)], lookEvery: Int = 100) throws -> LayoutExperimentDesign {
        try LayoutExperimentDesign(
            experiment: "layout", feed: "home", variants: variants, design: "salt=feed:home", margin: 0.2, power: 0.8, lookEvery: lookEvery)
    }

    /// Users whose clicks are all 0 or 1, `clickers` of them 1.
    func counts(users: Int, clickers: Int) -> LayoutExperimentOutcome.Counts {
        .init(users: users, sessions: users, impressions: users, clicks: clickers, clickSquares: clickers)
    }

    @Test func aSplitFarFromTheWeightsIsAMismatchAndOneNearThemIsNot() throws {
        let layout = try design([("a", 50), ("b", 50)])
        let fair = layout.outcome(counts: [counts(users: 1_010, clickers: 0), counts(users: 990, clickers: 0)], looks: [[]], duplicates: 0, late: 0)
        #expect(!fair.sampleRatio.mismatch && fair.sampleRatio.pValue > 0.5)
        let skewed = layout.outcome(counts: [counts(users: 1_100, clickers: 0), counts(users: 900, clickers: 0)], looks: [[]], duplicates: 0, late: 0)
        #expect(skewed.sampleRatio.mismatch && abs(skewed.sampleRatio.chiSquare - 20) < 1e-9)
        // 70/30 weights: the same 1,400 / 600 split is what was asked for.
        let weighted = try design([("a", 70), ("b", 30)])
            .outcome(counts: [counts(users: 1_400, clickers: 0), counts(users: 600, clickers: 0)], looks: [[]], duplicates: 0, late: 0)
        #expect(!weighted.sampleRatio.mismatch && weighted.sampleRatio.chiSquare < 1e-9)
    }

    @Test func clicksPerUserTheirDifferenceAndItsIntervalComeFromTheUserSums() throws {
        let outcome = try design([("a", 50), ("b", 50)])
            .outcome(counts: [counts(users: 400, clickers: 100), counts(users: 400, clickers: 160)], looks: [[]], duplicates: 2, late: 1)
        #expect(outcome.variants.map(\.clicksPerUser) == [0.25, 0.4])
        #expect(abs(outcome.variants[0].variance - 0.25 * 0.75) < 1e-12)
        let pair = try #require(outcome.pairs.first)
        #expect((pair.first, pair.second) == ("a", "b") && abs(pair.difference - 0.15) < 1e-12)
        let se = (0.25 * 0.75 / 400 + 0.4 * 0.6 / 400).squareRoot()
        let interval = try #require(pair.interval)
        #expect(abs(interval.lowerBound - (0.15 - 1.959964 * se)) < 1e-5 && abs(interval.upperBound - (0.15 + 1.959964 * se)) < 1e-5)
        #expect(pair.pValue < 0.001 && outcome.duplicates == 2 && outcome.late == 1 && outcome.correction == "none")
    }

    /// Looks every 100 users: the second variant far ahead at the first look decides for it,
    /// and the decision stays when later counters even out (it was taken at that look).
    @Test func aLookThatCrossesTheBoundaryDecidesForTheVariantAhead() throws {
        let layout = try design([("a", 50), ("b", 50)])
        let first = counts(users: 60, clickers: 6)
        let second = counts(users: 60, clickers: 40)
        let due = try #require(layout.dueLook((0, 1), counts: [first, second], recorded: []))
        #expect(due.look == 1)
        let even = [counts(users: 500, clickers: 100), counts(users: 500, clickers: 100)]
        let outcome = layout.outcome(counts: even, looks: [[due]], duplicates: 0, late: 0)
        #expect(outcome.pairs[0].sequential?.decision == "B" && outcome.pairs[0].sequential?.decidedAtLook == 1)
        // Without that look the same counters say nothing yet.
        #expect(layout.outcome(counts: even, looks: [[]], duplicates: 0, late: 0).pairs[0].sequential?.decision == "keep going")
        #expect(layout.dueLook((0, 1), counts: [first, second], recorded: [due]) == nil)
        #expect(LayoutLook(look: 1, stored: due.stored) == due)
    }

    /// Three variants: three pairs, decided by Holm; the one variant that wins against both
    /// others is called, the pair of the two equal ones is not.
    @Test func threeVariantsAreComparedPairwiseUnderHolm() throws {
        let layout = try design([("a", 34), ("b", 33), ("c", 33)])
        #expect(layout.pairs.map { "\($0.0)\($0.1)" } == ["01", "02", "12"])
        let c = [counts(users: 100, clickers: 10), counts(users: 100, clickers: 10), counts(users: 100, clickers: 60)]
        let looks = layout.pairs.map { pair in [layout.dueLook(pair, counts: c, recorded: [])!] }
        let outcome = layout.outcome(counts: c, looks: looks, duplicates: 0, late: 0)
        #expect(outcome.correction == "holm")
        #expect(outcome.pairs.map { $0.sequential?.decision } == ["keep going", "B", "B"])
    }

    /// 4 (z₁₋α/₂ + z_power)² / margin² at 50/50 (3,140 at the defaults); a 90/10 pair needs
    /// (1/0.9 + 1/0.1) / 4 = 2.8 times as many, and the design plans for the most uneven pair.
    @Test func theFixedSizeGrowsWithAnUnevenSplit() throws {
        #expect(LayoutExperimentDesign.fixedUsers(margin: 0.1, power: 0.8) == 3_140)
        #expect(LayoutExperimentDesign.fixedUsers(margin: 0.1, power: 0.8, share: 0.1) == 8_721)
        let even = try design([("a", 50), ("b", 50)])
        let uneven = try design([("a", 90), ("b", 10)])
        #expect(uneven.sequential.fixedSessions > 2 * even.sequential.fixedSessions)
        #expect(try design([("a", 80), ("b", 10), ("c", 10)]).sequential.fixedSessions == 1_987)
    }

    @Test func designsWithTooManyLooksOrNoEffectAreRefused() {
        #expect(throws: ExperimentDesigns.DesignError.self) { try design([("a", 50), ("b", 50)], lookEvery: 1) }
        #expect(throws: ExperimentDesigns.DesignError.self) {
            try LayoutExperimentDesign(experiment: "x", feed: "f", variants: [("a", 50), ("b", 50)], design: "", margin: 0, power: 0.8, lookEvery: 100)
        }
    }
}
