import Foundation

/// Where a standardized statistic observed at planned looks stops, by numerical integration.
///
/// At information fractions t₁ < … < t_K the statistic is Z_k = S_k / √t_k, S a Brownian
/// motion with drift θ (Z_K ~ N(θ, 1)). At look k it stops above when Z_k ≥ b_k, below when
/// Z_k ≤ −b_k, and inside when |Z_k| < a_k (a_k ≤ 0: no inner stop); at the last look it
/// stops wherever it is. The density of S_k on the continuation region is carried from look
/// to look with Simpson's rule, and each look's stopping probabilities come from the exact
/// normal tails of the step (Armitage, McPherson and Rowe 1969; Jennison and Turnbull,
/// "Group Sequential Methods", 2000, ch. 19). Exact up to the quadrature, which
/// `pointsPerDeviation` sets (12 points per standard deviation of a step: the Pocock and
/// O'Brien–Fleming constants to the 3 decimals of the published tables, which a test checks).
public enum BoundaryCrossing {
    /// Per look, the probability of stopping there: above, below, inside.
    public struct Stops: Sendable, Hashable {
        public var upper: [Double]
        public var lower: [Double]
        public var inner: [Double]

        /// P(stop above or below at some look).
        public var crossed: Double { upper.reduce(0, +) + lower.reduce(0, +) }
    }

    /// - Parameters:
    ///   - times: t₁ < … < t_K in (0, 1].
    ///   - outer: b_k > 0 on the Z scale.
    ///   - inner: a_k on the Z scale (≤ 0: none at that look); ignored at the last look.
    ///   - drift: θ, the mean of Z at t = 1.
    public static func stops(times: [Double], outer: [Double], inner: [Double], drift: Double, pointsPerDeviation: Int = 12) -> Stops {
        precondition(!times.isEmpty && times.count == outer.count && times.count == inner.count, "one boundary per look")
        let looks = times.count
        var stops = Stops(upper: Array(repeating: 0, count: looks), lower: Array(repeating: 0, count: looks), inner: Array(repeating: 0, count: looks))
        // Grid (S values, Simpson weights) and density of the continuation region of the previous look.
        var points: [Double] = []
        var weights: [Double] = []
        var density: [Double] = []
        var previousTime = 0.0
        for k in 0..<looks {
            let t = times[k]
            let step = t - previousTime
            precondition(step > 0, "look times must increase")
            let sd = step.squareRoot()
            let shift = drift * step
            let upperS = outer[k] * t.squareRoot()
            let innerS = k < looks - 1 && inner[k] > 0 ? min(inner[k], outer[k]) * t.squareRoot() : nil
            // Tail probabilities of S_k given S_{k−1} = s (s = 0 at the first look, a point mass).
            func masses(from s: Double) -> (upper: Double, lower: Double, inner: Double) {
                let mean = s + shift
                let upper = 0.5 * erfc((upperS - mean) / sd / 2.0.squareRoot())
                let lower = 0.5 * erfc((upperS + mean) / sd / 2.0.squareRoot())
                var inside = 0.0
                if let innerS { inside = Normal.cdf((innerS - mean) / sd) - Normal.cdf((-innerS - mean) / sd) }
                return (upper, lower, max(0, inside))
            }
            if k == 0 {
                let m = masses(from: 0)
                (stops.upper[k], stops.lower[k], stops.inner[k]) = (m.upper, m.lower, m.inner)
            } else {
                var upper = 0.0, lower = 0.0, inside = 0.0
                for i in points.indices where density[i] > 0 {
                    let mass = weights[i] * density[i]
                    let m = masses(from: points[i])
                    upper += mass * m.upper
                    lower += mass * m.lower
                    inside += mass * m.inner
                }
                (stops.upper[k], stops.lower[k], stops.inner[k]) = (upper, lower, inside)
            }
            if k == looks - 1 {
                // The last look stops everything still running.
                stops.inner[k] = max(0, 1 - stops.upper.reduce(0, +) - stops.lower.reduce(0, +) - stops.inner[0..<k].reduce(0, +))
                break
            }
            // The continuation region's grid, fine enough for this step and the next.
            let nextStep = times[k + 1] - t
            let spacing = min(step, nextStep).squareRoot() / Double(pointsPerDeviation)
            var newPoints: [Double] = []
            var newWeights: [Double] = []
            let intervals = innerS.map { [(-upperS, -$0), ($0, upperS)] } ?? [(-upperS, upperS)]
            for (low, high) in intervals where high > low {
                var n = Int(((high - low) / spacing).rounded(.up))
                n = max(2, n + n % 2)  // Simpson: an even number of panels
                let h = (high - low) / Double(n)
                for j in 0...n {
                    newPoints.append(low + Double(j) * h)
                    newWeights.append(h / 3 * (j == 0 || j == n ? 1 : (j % 2 == 1 ? 4 : 2)))
                }
            }
            // f_k(s) = Σ_i w_i f_{k−1}(s_i) φ((s − s_i − θΔ)/√Δ)/√Δ, terms beyond 9 deviations dropped.
            var newDensity = Array(repeating: 0.0, count: newPoints.count)
            let normalizer = 1 / (sd * (2 * Double.pi).squareRoot())
            let reach = 9 * sd
            if k == 0 {
                for j in newPoints.indices {
                    let x = (newPoints[j] - shift) / sd
                    newDensity[j] = normalizer * exp(-0.5 * x * x)
                }
            } else {
                // Both grids ascend, so the window of new points within reach slides forward.
                var first = 0, end = 0
                for i in points.indices {
                    let center = points[i] + shift
                    while first < newPoints.count, newPoints[first] <= center - reach { first += 1 }
                    end = max(end, first)
                    while end < newPoints.count, newPoints[end] < center + reach { end += 1 }
                    guard density[i] > 0 else { continue }
                    let mass = weights[i] * density[i] * normalizer
                    for j in first..<end {
                        let x = (newPoints[j] - center) / sd
                        newDensity[j] += mass * exp(-0.5 * x * x)
                    }
                }
            }
            points = newPoints
            weights = newWeights
            density = newDensity
            previousTime = t
        }
        return stops
    }
}
