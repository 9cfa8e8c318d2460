import BraidExperiments
import Foundation
import Testing

@Suite("sequential tests")
struct SequentialTests {
    func close(_ lhs: Double, _ rhs: Double, _ tolerance: Double) -> Bool { abs(lhs - rhs) < tolerance }

    @Test func boundaryConstantsMatchPublishedTables() {
        // Two-sided α = 0.05: Pocock (1977) 2.178, 2.413, 2.555 for K = 2, 5, 10;
        // O'Brien–Fleming C_B(K) 2.040, 2.087 for K = 5, 10 (Jennison and Turnbull, table 2.3).
        #expect(close(SequentialDesign.efficacyConstant(alpha: 0.05, looks: 2, shape: 0.5), 2.178, 0.001))
        #expect(close(SequentialDesign.efficacyConstant(alpha: 0.05, looks: 5, shape: 0.5), 2.413, 0.001))
        #expect(close(SequentialDesign.efficacyConstant(alpha: 0.05, looks: 10, shape: 0.5), 2.555, 0.001))
        #expect(close(SequentialDesign.efficacyConstant(alpha: 0.05, looks: 5, shape: 0), 2.040, 0.001))
        #expect(close(SequentialDesign.efficacyConstant(alpha: 0.05, looks: 10, shape: 0), 2.087, 0.001))
        // One look is the fixed-horizon test.
        #expect(close(SequentialDesign.efficacyConstant(alpha: 0.05, looks: 1, shape: 0.4), 1.959_964, 1e-5))
    }

    @Test func crossingProbabilitiesOfOneAndTwoLooks() {
        let one = BoundaryCrossing.stops(times: [1], outer: [1.959_964], inner: [0], drift: 0)
        #expect(close(one.crossed, 0.05, 1e-6))
        #expect(close(one.upper[0], one.lower[0], 1e-12))
        // Drift z₀.₉₇₅ + z₀.₈: the fixed test's power 0.8 (plus the far tail, 2e-7).
        let powered = BoundaryCrossing.stops(times: [1], outer: [1.959_964], inner: [0], drift: 1.959_964 + 0.841_621)
        #expect(close(powered.upper[0], 0.8, 1e-5))
        // Two looks at t = ½ and 1 with 1.96 at both: P(|Z₁| ≥ 1.96 or |Z₂| ≥ 1.96), Z's
        // correlation √½, is 0.0831 (Armitage, McPherson and Rowe's repeated-significance table).
        let twice = BoundaryCrossing.stops(times: [0.5, 1], outer: [1.959_964, 1.959_964], inner: [0, 0], drift: 0)
        #expect(close(twice.crossed, 0.0831, 0.0005))
        // An inner region at look 1 stops what it holds: |Z₁| < 1 has probability 0.6827.
        let inner = BoundaryCrossing.stops(times: [0.5, 1], outer: [3, 3], inner: [1, 0], drift: 0)
        #expect(close(inner.inner[0], 0.682_689, 1e-6))
        #expect(close(inner.upper.reduce(0, +) + inner.lower.reduce(0, +) + inner.inner.reduce(0, +), 1, 1e-6))
    }

    @Test func theDesignKeepsItsErrorsAndSavesSessions() throws {
        let design = try SequentialDesign(alpha: 0.05, power: 0.8, fixedSessions: 1_000, lookEvery: 100, shape: 0.4)
        #expect(design.maxSessions > design.fixedSessions)
        #expect(design.maxSessions == design.looks * 100)
        // Efficacy falls, futility rises, and they meet at the last look.
        for k in 1..<design.looks {
            #expect(design.efficacy[k] < design.efficacy[k - 1])
            #expect(design.futility[k] > design.futility[k - 1])
        }
        #expect(close(design.futility.last!, design.efficacy.last!, 1e-9))
        #expect(design.futility.first! <= 0, "no futility stop at the first look")
        let null = design.operatingCharacteristics(drift: 0)
        // Non-binding futility: the stops for no difference only lower the error below α.
        #expect(null.a + null.b < 0.05)
        #expect(null.a + null.b > 0.02)
        let planned = design.operatingCharacteristics(drift: design.plannedDrift)
        #expect(planned.b >= 0.8 - 1e-6)
        #expect(planned.expectedSessions < 0.85 * Double(design.fixedSessions))
        let doubled = design.operatingCharacteristics(drift: 2 * design.plannedDrift)
        #expect(doubled.expectedSessions < 0.45 * Double(design.fixedSessions))
    }

    @Test func theAlwaysValidPValueIsTheCrossingProbability() throws {
        let design = try SequentialDesign(fixedSessions: 1_000, lookEvery: 100, shape: 0.4)
        // At the efficacy constant it is α, and it falls as the evidence grows.
        #expect(close(design.alwaysValidPValue(maximum: design.efficacyConstant), 0.05, 1e-5))
        #expect(design.alwaysValidPValue(maximum: 3.5) < design.alwaysValidPValue(maximum: 3))
        #expect(design.alwaysValidPValue(maximum: 0) == 1)
        // With one look it is the two-sided normal p-value.
        let single = try SequentialDesign(fixedSessions: 50, lookEvery: 100)
        #expect(single.looks == 1)
        #expect(close(single.alwaysValidPValue(maximum: 2.575_829), 0.01, 1e-6))
        // It is larger than the fixed-horizon p-value of the same Z: the price of looking often.
        var test = SequentialTest(design: design)
        test.look(SequentialStatistic(z: 2.2, estimate: 0.1, standardError: 0.05))
        #expect(test.pValue > erfc(2.2 / 2.0.squareRoot()))
    }

    @Test func decisionsFollowTheBoundaries() throws {
        let design = try SequentialDesign(fixedSessions: 1_000, lookEvery: 100, shape: 0.4)
        let b1 = design.efficacy[0]
        #expect(SequentialTest.decision(design: design, look: 1, z: b1 + 0.01) == .b)
        #expect(SequentialTest.decision(design: design, look: 1, z: -b1 - 0.01) == .a)
        #expect(SequentialTest.decision(design: design, look: 1, z: 0) == .keepGoing)
        let late = try #require(design.futility.indices.first { design.futility[$0] > 0.5 })
        #expect(SequentialTest.decision(design: design, look: late + 1, z: 0.1) == .noDifference)
        #expect(SequentialTest.decision(design: design, look: late + 1, z: design.efficacy[late] - 0.01) == .keepGoing)
        #expect(SequentialTest.decision(design: design, look: design.looks, z: design.efficacy.last! - 0.01) == .noDifference)

        // The first decision sticks; the p-value keeps falling after it; the interval is estimate ± b_k · se.
        var test = SequentialTest(design: design)
        #expect(test.look(SequentialStatistic(z: 1, estimate: 0.02, standardError: 0.02)) == .keepGoing)
        #expect(test.interval == (0.02 - design.efficacy[0] * 0.02)...(0.02 + design.efficacy[0] * 0.02))
        #expect(test.look(SequentialStatistic(z: -(design.efficacy[1] + 0.1), estimate: -0.05, standardError: 0.01)) == .a)
        let p = test.pValue
        #expect(p < 0.05)
        #expect(test.look(SequentialStatistic(z: 5, estimate: 0.05, standardError: 0.01)) == .a)
        #expect(test.decidedAt == 2)
        #expect(test.pValue < p)
        #expect(test.reading.sessions == 300)
    }

    @Test func statisticsOfKnownCounts() {
        // 40 wins for A, 60 for B in 200 sessions: z = 20 / √100 = 2, B − A per session 0.1,
        // standard error √(100 − 20² / 200) / 200.
        let interleaving = SequentialStatistic.interleaving(winsA: 40, winsB: 60, sessions: 200)
        #expect(close(interleaving.z, 2, 1e-12))
        #expect(close(interleaving.estimate, 0.1, 1e-12))
        #expect(close(interleaving.standardError, 98.0.squareRoot() / 200, 1e-12))
        #expect(SequentialStatistic.interleaving(winsA: 60, winsB: 40, sessions: 200).z < 0)
        #expect(SequentialStatistic.interleaving(winsA: 0, winsB: 0, sessions: 10).z == 0)
        // The A/B statistic is the user-level z-test's, signed.
        var control = UnitMetric(), treatment = UnitMetric()
        for value in [0.2, 0.4, 0.6, 0.1, 0.3] { control.add(value) }
        for value in [0.5, 0.7, 0.4, 0.6, 0.9, 0.3] { treatment.add(value) }
        let ab = SequentialStatistic.abTest(control: control, treatment: treatment)
        #expect(ab.z > 0)
        #expect(close(erfc(abs(ab.z) / 2.0.squareRoot()), UnitLevelTest.pValue(control, treatment), 1e-12))
        #expect(close(ab.estimate, treatment.mean - control.mean, 1e-12))
        #expect(SequentialStatistic.abTest(control: treatment, treatment: control).z == -ab.z)
    }

    @Test func holmStepsDown() {
        // Sorted 0.005 ≤ 0.05/4 and 0.01 ≤ 0.05/3 are rejected; 0.03 > 0.05/2 stops the procedure.
        #expect(Holm.rejections([0.01, 0.04, 0.03, 0.005], alpha: 0.05) == [true, false, false, true])
        // More than Bonferroni (0.05/3 each) would: 0.02 ≤ 0.05/2, 0.04 ≤ 0.05/1.
        #expect(Holm.rejections([0.04, 0.01, 0.02], alpha: 0.05) == [true, true, true])
        // A small p-value after the first failure is not rejected: 0.04 ≤ 0.05 but 0.03 > 0.025 came first.
        #expect(Holm.rejections([0.03, 0.04, 0.001], alpha: 0.05) == [false, false, true])
        #expect(Holm.rejections([], alpha: 0.05) == [])
        #expect(Holm.rejections([0.05], alpha: 0.05) == [true])
    }

    @Test func pairwiseDecisionsUseHolmAcrossPairs() throws {
        let design = try SequentialDesign(fixedSessions: 1_000, lookEvery: 100, shape: 0.4)
        // Pair 1 far beyond its boundary, pair 2 just beyond it (its own test says A, p a little
        // under α), pair 3 nowhere: Holm rejects pair 1, then needs α/2 of pair 2, which it lacks.
        var strong = SequentialTest(design: design)
        strong.look(SequentialStatistic(z: 6, estimate: 0.1, standardError: 0.01))
        var weak = SequentialTest(design: design)
        weak.look(SequentialStatistic(z: -(design.efficacy[0] + 0.01), estimate: -0.1, standardError: 0.03))
        let none = SequentialTest(design: design)
        #expect(weak.decision == .a)
        #expect(weak.pValue > 0.025 && weak.pValue < 0.05)
        #expect(PairwiseSequential.decisions([strong, weak, none], alpha: 0.05) == [.b, .keepGoing, .keepGoing])
        // With two pairs the weak one's p needs only α/1 after the strong one: decided.
        #expect(PairwiseSequential.decisions([strong, weak], alpha: 0.05) == [.b, .a])
    }

    @Test func clopperPearsonUpperBounds() {
        // 5 of 10: 95 % interval [0.1871, 0.8129]; 0 of 10: 1 − 0.025^(1/10).
        #expect(close(ClopperPearson.upper(successes: 5, trials: 10), 0.812_914, 1e-5))
        #expect(close(ClopperPearson.upper(successes: 0, trials: 10), 1 - pow(0.025, 0.1), 1e-9))
        #expect(ClopperPearson.upper(successes: 10, trials: 10) == 1)
        // 100 of 2,000 (5 %): about 0.0605.
        let upper = ClopperPearson.upper(successes: 100, trials: 2_000)
        #expect(upper > 0.06 && upper < 0.061)
    }
}
