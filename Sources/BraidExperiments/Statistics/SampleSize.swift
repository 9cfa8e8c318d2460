import Foundation

/// Sessions an experiment needs to detect an effect with the given power at level α
/// (two-sided), by the usual normal approximations.
public enum SampleSize {
    /// Team-draft interleaving judged by the sign test: impressions win for B with
    /// probability `winB`, for A with `winA`, the rest are ties. Among the N decided
    /// impressions B's share q = winB / (winA + winB) must be told from ½:
    /// N = ((z₁₋α/₂ · ½ + z_power · √(q(1−q))) / |q − ½|)², and sessions = N / (winA + winB).
    /// Nil when there is no effect to detect.
    public static func interleaving(winA: Double, winB: Double, alpha: Double, power: Double) -> Int? {
        let decided = winA + winB
        guard decided > 0 else { return nil }
        let q = winB / decided
        guard q != 0.5 else { return nil }
        let zAlpha = Normal.quantile(1 - alpha / 2)
        let zPower = Normal.quantile(power)
        let root = (zAlpha * 0.5 + zPower * (q * (1 - q)).squareRoot()) / abs(q - 0.5)
        return Int((root * root / decided).rounded(.up))
    }

    /// An A/B test on click-through (the share of sessions with a click), half of the sessions
    /// in each arm, judged by the two-proportion z-test: per arm
    /// n = ((z₁₋α/₂ · √(2 p̄ (1−p̄)) + z_power · √(p₁(1−p₁) + p₂(1−p₂))) / |p₁ − p₂|)², p̄ the mean;
    /// the result is both arms together, 2n. Nil when the rates are equal. The case of
    /// ``abTestUnits(controlMean:treatmentMean:controlVariance:treatmentVariance:alpha:power:)``
    /// where every unit is one session, its metric 0 or 1.
    public static func abTest(controlRate p1: Double, treatmentRate p2: Double, alpha: Double, power: Double) -> Int? {
        abTestUnits(
            controlMean: p1, treatmentMean: p2, controlVariance: p1 * (1 - p1), treatmentVariance: p2 * (1 - p2),
            alpha: alpha, power: power
        ).map { 2 * $0 }
    }

    /// Units (users) per arm of an A/B test randomized by unit and judged by the z-test on the
    /// units' metric (``UnitLevelTest``): the metric has these means and variances across units
    /// in the two arms, and under the null hypothesis the pooled variance of both arms mixed,
    /// v̄ = (v₁ + v₂)/2 + (m₁ − m₂)²/4. Per arm
    /// n = ((z₁₋α/₂ · √(2 v̄) + z_power · √(v₁ + v₂)) / |m₁ − m₂|)².
    /// With 0/1 metrics (v = p(1−p)) v̄ is p̄(1−p̄), the two-proportion formula. Nil when the
    /// means are equal.
    public static func abTestUnits(
        controlMean m1: Double, treatmentMean m2: Double, controlVariance v1: Double, treatmentVariance v2: Double,
        alpha: Double, power: Double
    ) -> Int? {
        guard m1 != m2 else { return nil }
        let pooled = (v1 + v2) / 2 + (m1 - m2) * (m1 - m2) / 4
        let zAlpha = Normal.quantile(1 - alpha / 2)
        let zPower = Normal.quantile(power)
        let root = (zAlpha * (2 * pooled).squareRoot() + zPower * (v1 + v2).squareRoot()) / abs(m1 - m2)
        return Int((root * root).rounded(.up))
    }
}

/// The two-sided two-proportion z-test with pooled variance, the A/B test on click-through.
public enum TwoProportionTest {
    /// 1 when either arm is empty or no session differs.
    public static func pValue(successes1: Int, trials1: Int, successes2: Int, trials2: Int) -> Double {
        guard trials1 > 0, trials2 > 0 else { return 1 }
        let pooled = Double(successes1 + successes2) / Double(trials1 + trials2)
        let variance = pooled * (1 - pooled) * (1 / Double(trials1) + 1 / Double(trials2))
        guard variance > 0 else { return 1 }
        let z = abs(Double(successes1) / Double(trials1) - Double(successes2) / Double(trials2)) / variance.squareRoot()
        return min(1, erfc(z / 2.0.squareRoot()))
    }
}
