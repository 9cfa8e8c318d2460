import BraidExperiments
import Testing

@Suite("experiment statistics")
struct StatisticsTests {
    func close(_ lhs: Double, _ rhs: Double, _ tolerance: Double = 1e-9) -> Bool { abs(lhs - rhs) < tolerance }

    @Test func normalQuantilesAndCDF() {
        #expect(close(Normal.quantile(0.975), 1.959_963_984_540_054, 1e-12))
        #expect(close(Normal.quantile(0.8), 0.841_621_233_572_914_4, 1e-12))
        #expect(close(Normal.quantile(0.001), -3.090_232_306_167_813, 1e-10))
        #expect(close(Normal.quantile(0.5), 0, 1e-15))
        #expect(close(Normal.cdf(1.96), 0.975_002_104_851_779_6, 1e-12))
        for p in stride(from: 0.0005, to: 1, by: 0.0137) {
            #expect(close(Normal.cdf(Normal.quantile(p)), p, 1e-12), "p=\(p)")
        }
    }

    @Test func sampleSizesMatchHandComputedValues() throws {
        // A/B, 30 % against 33 % click-through: per arm ((1.959964 · √(2 · 0.315 · 0.685) +
        // 0.841621 · √(0.21 + 0.2211)) / 0.03)² = 3762.36 → 3763, both arms 7526.
        #expect(SampleSize.abTest(controlRate: 0.30, treatmentRate: 0.33, alpha: 0.05, power: 0.8) == 7_526)
        // Interleaving, A wins 20 %, B 25 %: q = 5/9, decided impressions
        // ((1.959964 · 0.5 + 0.841621 · √(q(1−q))) / (q − ½))² = 633.40, sessions 633.40 / 0.45 → 1408.
        #expect(SampleSize.interleaving(winA: 0.20, winB: 0.25, alpha: 0.05, power: 0.8) == 1_408)
        // Symmetric in which side wins; no effect, no size.
        #expect(SampleSize.interleaving(winA: 0.25, winB: 0.20, alpha: 0.05, power: 0.8) == 1_408)
        #expect(SampleSize.interleaving(winA: 0.2, winB: 0.2, alpha: 0.05, power: 0.8) == nil)
        #expect(SampleSize.interleaving(winA: 0, winB: 0, alpha: 0.05, power: 0.8) == nil)
        #expect(SampleSize.abTest(controlRate: 0.3, treatmentRate: 0.3, alpha: 0.05, power: 0.8) == nil)
        // More power or a smaller α needs more sessions.
        let base = try #require(SampleSize.abTest(controlRate: 0.30, treatmentRate: 0.33, alpha: 0.05, power: 0.8))
        #expect(try #require(SampleSize.abTest(controlRate: 0.30, treatmentRate: 0.33, alpha: 0.01, power: 0.8)) > base)
        #expect(try #require(SampleSize.abTest(controlRate: 0.30, treatmentRate: 0.33, alpha: 0.05, power: 0.9)) > base)
    }

    @Test func twoProportionTest() {
        // 30/100 against 45/100: pooled 0.375, z = 0.15 / √(0.375 · 0.625 · 0.02) = 2.19089.
        #expect(close(TwoProportionTest.pValue(successes1: 30, trials1: 100, successes2: 45, trials2: 100), 0.028_459_736_916_310_57, 1e-12))
        #expect(TwoProportionTest.pValue(successes1: 30, trials1: 100, successes2: 30, trials2: 100) == 1)
        #expect(TwoProportionTest.pValue(successes1: 0, trials1: 100, successes2: 0, trials2: 100) == 1)
        #expect(TwoProportionTest.pValue(successes1: 0, trials1: 0, successes2: 3, trials2: 10) == 1)
    }

    @Test func userLevelSampleSizeMatchesAHandComputedCase() throws {
        // Users' click-through 0.30 ± √0.05 against 0.33 ± √0.06: pooled under the null
        // v̄ = (0.05 + 0.06)/2 + 0.03²/4 = 0.055225; per arm
        // ((1.959964 · √(2 · 0.055225) + 0.841621 · √0.11) / 0.03)² = 962.05 → 963 users.
        #expect(SampleSize.abTestUnits(
            controlMean: 0.30, treatmentMean: 0.33, controlVariance: 0.05, treatmentVariance: 0.06, alpha: 0.05, power: 0.8) == 963)
        // Bernoulli units (v = p(1−p)) are the two-proportion formula: 3763 per arm, 7526 in all.
        #expect(SampleSize.abTestUnits(
            controlMean: 0.30, treatmentMean: 0.33, controlVariance: 0.21, treatmentVariance: 0.33 * 0.67, alpha: 0.05, power: 0.8) == 3_763)
        // More variance between users, more users.
        #expect(try #require(SampleSize.abTestUnits(
            controlMean: 0.30, treatmentMean: 0.33, controlVariance: 0.10, treatmentVariance: 0.12, alpha: 0.05, power: 0.8)) > 963)
        #expect(SampleSize.abTestUnits(controlMean: 0.3, treatmentMean: 0.3, controlVariance: 0.05, treatmentVariance: 0.05, alpha: 0.05, power: 0.8) == nil)
    }

    @Test func unitLevelTestMatchesAHandComputedCaseAndTheTwoProportionTest() {
        func metric(_ values: [Double]) -> UnitMetric {
            var metric = UnitMetric()
            for value in values { metric.add(value) }
            return metric
        }
        // Control 0, .2, .4, .6 (mean .3), treatment .2 … 1 (mean .6): pooled variance of the
        // nine 0.0889, standard error √(0.0889 · (1/4 + 1/5)) = 0.2, z = 1.5, p = 0.13361.
        let control = metric([0, 0.2, 0.4, 0.6]), treatment = metric([0.2, 0.4, 0.6, 0.8, 1.0])
        #expect(close(control.mean, 0.3) && close(treatment.variance, 0.08))
        #expect(close(UnitLevelTest.pValue(control, treatment), 0.133_614_402_537_716, 1e-12))
        // One 0/1 unit per session: the two-proportion test.
        let clicks = metric([Double](repeating: 1, count: 30) + [Double](repeating: 0, count: 70))
        let more = metric([Double](repeating: 1, count: 45) + [Double](repeating: 0, count: 55))
        #expect(close(UnitLevelTest.pValue(clicks, more), TwoProportionTest.pValue(successes1: 30, trials1: 100, successes2: 45, trials2: 100), 1e-12))
        #expect(UnitLevelTest.pValue(metric([0.5, 0.5]), metric([0.5])) == 1)
        #expect(UnitLevelTest.pValue(UnitMetric(), treatment) == 1)
        let scaled = metric([0, 1, 2, 3]).scaled(by: 0.2)
        #expect(close(scaled.mean, 0.3) && close(scaled.variance, control.variance))
    }
}
