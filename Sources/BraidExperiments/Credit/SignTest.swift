import Foundation

/// The two-sided sign test over team-draft wins (ties excluded): how likely a split at
/// least this uneven is if neither ranking is preferred.
public enum SignTest {
    /// Exact binomial for n ≤ 100,000 wins, normal approximation with continuity correction
    /// above (where the two agree to well below any reporting precision). 1 when n = 0.
    public static func twoSidedPValue(winsA: Int, winsB: Int) -> Double {
        let n = max(0, winsA) + max(0, winsB)
        guard n > 0 else { return 1 }
        let k = min(max(0, winsA), max(0, winsB))
        if n > 100_000 {
            let mean = Double(n) / 2
            let deviation = (Double(n) / 4).squareRoot()
            let z = (Double(k) + 0.5 - mean) / deviation
            return min(1, 2 * 0.5 * erfc(-z / 2.0.squareRoot()))
        }
        // P(X ≤ k) for X ~ Binomial(n, 1/2), in log space so large n cannot underflow:
        // log C(n, i) grows from log C(n, 0) = 0 by log((n - i + 1) / i).
        let logHalfPowN = Double(n) * log(0.5)
        var logChoose = 0.0
        var tail = exp(logHalfPowN)
        if k >= 1 {
            for i in 1...k {
                logChoose += log(Double(n - i + 1)) - log(Double(i))
                tail += exp(logChoose + logHalfPowN)
            }
        }
        return min(1, 2 * tail)
    }
}
