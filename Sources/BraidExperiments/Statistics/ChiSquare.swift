import Foundation

/// Pearson's χ² goodness-of-fit test: what a sample-ratio-mismatch check needs.
public enum ChiSquare {
    /// χ² = Σ (observed − expected)² / expected over the cells with a positive expectation, and
    /// its p-value with cells − 1 degrees of freedom. (0, 1) when nothing was observed.
    public static func goodnessOfFit(observed: [Int], shares: [Double]) -> (statistic: Double, degreesOfFreedom: Int, pValue: Double) {
        precondition(observed.count == shares.count, "one share per cell")
        let total = Double(observed.reduce(0, +))
        let shareSum = shares.reduce(0, +)
        guard total > 0, shareSum > 0, observed.count > 1 else { return (0, max(0, observed.count - 1), 1) }
        var statistic = 0.0
        for (count, share) in zip(observed, shares) where share > 0 {
            let expected = total * share / shareSum
            statistic += (Double(count) - expected) * (Double(count) - expected) / expected
        }
        let degrees = observed.count - 1
        return (statistic, degrees, survival(statistic, degreesOfFreedom: degrees))
    }

    /// P(χ²_k ≥ x) = Q(k/2, x/2), the regularized upper incomplete gamma function: its series
    /// below a + 1, Lentz's continued fraction above (Numerical Recipes, 6.2), to 1e-14.
    public static func survival(_ x: Double, degreesOfFreedom k: Int) -> Double {
        guard x > 0 else { return 1 }
        let a = Double(k) / 2
        let z = x / 2
        let logPrefix = a * log(z) - z - lgamma(a)
        if z < a + 1 {
            var term = 1 / a
            var sum = term
            var n = a
            for _ in 0..<1_000 {
                n += 1
                term *= z / n
                sum += term
                if abs(term) < abs(sum) * 1e-15 { break }
            }
            return max(0, min(1, 1 - sum * exp(logPrefix)))
        }
        let tiny = 1e-300
        var b = z + 1 - a
        var c = 1 / tiny
        var d = 1 / b
        var h = d
        for i in 1..<1_000 {
            let an = -Double(i) * (Double(i) - a)
            b += 2
            d = an * d + b
            if abs(d) < tiny { d = tiny }
            c = b + an / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            let step = d * c
            h *= step
            if abs(step - 1) < 1e-15 { break }
        }
        return max(0, min(1, exp(logPrefix) * h))
    }
}
