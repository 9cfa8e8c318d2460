import Foundation

/// The Clopper–Pearson ("exact") confidence interval of a binomial proportion: the p at which
/// observing as few (or as many) successes has probability (1 − confidence) / 2.
public enum ClopperPearson {
    /// The upper end: the p with P(X ≤ successes | trials, p) = (1 − confidence) / 2; 1 when
    /// every trial succeeded.
    public static func upper(successes: Int, trials: Int, confidence: Double = 0.95) -> Double {
        precondition(trials >= 0 && (0...max(0, trials)).contains(successes), "successes must be 0 to trials")
        guard trials > 0, successes < trials else { return 1 }
        let tail = (1 - confidence) / 2
        // P(X ≤ k | p) falls as p rises: bisect.
        var low = Double(successes) / Double(trials), high = 1.0
        for _ in 0..<60 {
            let middle = (low + high) / 2
            if binomialCDF(successes, trials, middle) > tail { low = middle } else { high = middle }
        }
        return (low + high) / 2
    }

    /// P(X ≤ k) for X ~ Binomial(n, p), 0 < p < 1, summed in log space.
    static func binomialCDF(_ k: Int, _ n: Int, _ p: Double) -> Double {
        let logP = log(p), logQ = log1p(-p)
        var logChoose = 0.0
        var total = 0.0
        for i in 0...k {
            if i > 0 { logChoose += log(Double(n - i + 1)) - log(Double(i)) }
            total += exp(logChoose + Double(i) * logP + Double(n - i) * logQ)
        }
        return min(1, total)
    }
}
