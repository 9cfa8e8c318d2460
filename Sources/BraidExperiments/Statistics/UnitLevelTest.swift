import Foundation

/// One arm's metric over its randomization units (users): how many, and the sum and sum of
/// squares of their values, which is all the z-test and the variance need.
public struct UnitMetric: Sendable, Hashable {
    public var count = 0
    public var sum = 0.0
    public var sumOfSquares = 0.0

    public init() {}

    public mutating func add(_ value: Double) {
        count += 1
        sum += value
        sumOfSquares += value * value
    }

    public var mean: Double { count > 0 ? sum / Double(count) : 0 }
    /// Variance across units (divided by the count: the population's, as p(1−p) is for 0/1).
    public var variance: Double { count > 0 ? max(0, sumOfSquares / Double(count) - mean * mean) : 0 }

    /// Mean and variance of the values times `factor` (the count and sums rescaled).
    public func scaled(by factor: Double) -> (mean: Double, variance: Double) {
        (mean * factor, variance * factor * factor)
    }

    public static func + (lhs: Self, rhs: Self) -> Self {
        var sum = lhs
        sum.count += rhs.count
        sum.sum += rhs.sum
        sum.sumOfSquares += rhs.sumOfSquares
        return sum
    }
}

/// The two-sided z-test of an A/B test randomized by unit (user), on the units' metric (a
/// user's click-through: her sessions with a click ÷ her sessions), with the variance pooled
/// over both arms as under the null hypothesis. The units are independent, a user's sessions
/// are not, so this is the valid test when a user keeps her arm; with every session its own
/// unit and a 0/1 metric it is ``TwoProportionTest``. With the same number of sessions per
/// user it is also what the delta method gives for the session-level ratio (Deng, Knoblich and
/// Lu, KDD 2018).
public enum UnitLevelTest {
    /// 1 when either arm is empty or every unit has the same value.
    public static func pValue(_ control: UnitMetric, _ treatment: UnitMetric) -> Double {
        guard control.count > 0, treatment.count > 0 else { return 1 }
        let pooled = (control + treatment).variance * (1 / Double(control.count) + 1 / Double(treatment.count))
        guard pooled > 0 else { return 1 }
        let z = abs(control.mean - treatment.mean) / pooled.squareRoot()
        return min(1, erfc(z / 2.0.squareRoot()))
    }
}
