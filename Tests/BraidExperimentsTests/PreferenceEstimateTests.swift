import BraidCore
import BraidExperiments
import BraidTestSupport
import Testing

@Suite("preference Δ and its interval")
struct PreferenceEstimateTests {
    func close(_ lhs: Double, _ rhs: Double, _ tolerance: Double = 1e-9) -> Bool { abs(lhs - rhs) < tolerance }

    @Test func matchesHandComputedBonettPriceIntervals() {
        // 10 A wins, 30 B wins, 60 ties: Δ = 20/100. p̃_A = 11/102, p̃_B = 31/102, d̃ = 20/102;
        // half width = 1.959964 · √((42/102 − (20/102)²) / 102) = 1.959964 · 0.0604979 = 0.118574.
        let a = PreferenceEstimate(winsA: 10, winsB: 30, ties: 60)
        #expect(close(a.delta, 0.2))
        #expect(close(a.lower, 0.077_504_984_7, 1e-9) && close(a.upper, 0.314_651_878_0, 1e-9), "\(a)")
        // Three B wins and nothing else: the plain Wald interval would be [1, 1]; this one is
        // d̃ = 3/5 ± 1.959964 · √((4/5 − 9/25) / 5) = 0.6 ± 0.585, clamped at 1.
        let b = PreferenceEstimate(winsA: 0, winsB: 3, ties: 0)
        #expect(close(b.delta, 1))
        #expect(close(b.lower, -0.101_218_032_5, 1e-9) && b.upper == 1, "\(b)")
        // No impressions: no information, the whole range.
        let none = PreferenceEstimate(winsA: 0, winsB: 0, ties: 0)
        #expect(none.delta == 0 && none.lower == -1 && none.upper == 1)
        // Symmetric counts: a symmetric interval, ±0.0619 at 1,000 impressions.
        let even = PreferenceEstimate(winsA: 500, winsB: 500, ties: 0)
        #expect(even.delta == 0 && close(even.upper, 0.061_917_616_5, 1e-9) && close(even.lower, -even.upper))
        // Mostly ties: Δ = 0.01, [−0.0098, 0.0297].
        let ties = PreferenceEstimate(winsA: 45, winsB: 55, ties: 900)
        #expect(close(ties.delta, 0.01) && close(ties.lower, -0.009_765_448_8, 1e-9) && close(ties.upper, 0.029_725_528_6, 1e-9))
    }

    @Test func outcomeCombinesCountsSignTestAndPreference() {
        let outcome = PreferenceOutcome(winsA: 10, winsB: 30, ties: 60)
        #expect(outcome.impressions == 100)
        #expect(outcome.pValue == SignTest.twoSidedPValue(winsA: 10, winsB: 30))
        #expect(outcome.preference == PreferenceEstimate(winsA: 10, winsB: 30, ties: 60))
        var counted = PreferenceOutcome(winsA: 0, winsB: 0, ties: 0)
        for result in [TeamDraftOutcome.winA, .winB, .winB, .tie] { counted.record(result) }
        #expect(counted == PreferenceOutcome(winsA: 1, winsB: 2, ties: 1))
    }

    /// The interval's reason for being: close to 95 % coverage at small samples too.
    @Test(arguments: [(30, 0.1, 0.2), (100, 0.3, 0.4), (400, 0.05, 0.1), (50, 0.0, 0.3)])
    func coversTheTrueDeltaAboutNinetyFivePercentOfTheTime(n: Int, pA: Double, pB: Double) {
        var rng = SeededGenerator(seed: UInt64(n))
        var covered = 0
        let runs = 4_000
        for _ in 0..<runs {
            var winsA = 0, winsB = 0
            for _ in 0..<n {
                let u = Double.random(in: 0..<1, using: &rng)
                if u < pA { winsA += 1 } else if u < pA + pB { winsB += 1 }
            }
            let estimate = PreferenceEstimate(winsA: winsA, winsB: winsB, ties: n - winsA - winsB)
            if estimate.lower <= pB - pA, pB - pA <= estimate.upper { covered += 1 }
        }
        let coverage = Double(covered) / Double(runs)
        #expect((0.93...0.975).contains(coverage), "coverage \(coverage) at n=\(n) pA=\(pA) pB=\(pB)")
    }
}
