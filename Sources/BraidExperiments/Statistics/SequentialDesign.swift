import Foundation

/// A group-sequential test with a look every `lookEvery` sessions, up to `maxSessions`: the
/// two-sided test of Pampallona and Tsiatis (1994) with early stopping for a difference or for
/// no difference, from the power family of Wang and Tsiatis (1987).
///
/// At look k of K (information fraction t_k = k / K, sessions k · `lookEvery`) with
/// standardized statistic Z_k (positive when B is better):
/// - |Z_k| ≥ b_k = C · t_k^(Δ−½): a difference, A or B by the sign (`efficacy`);
/// - |Z_k| < a_k = θ · √t_k − (θ − C) · t_k^(Δ−½), k < K: no difference as large as the
///   planned one (`futility`; a_k ≤ 0 means none at that look);
/// - at look K, a_K = b_K: one or the other.
///
/// C makes the chance of crossing ±b at any look α when there is no difference, *ignoring*
/// the futility stops (a non-binding futility rule: a team that keeps going after "no
/// difference" still has a valid test, and the real false-positive rate is below α). θ (the
/// drift of Z at look K under the planned effect) and with it K are the smallest giving the
/// power at the planned effect with both rules, computed by ``BoundaryCrossing``.
///
/// Why group-sequential and not the mixture SPRT (Johari et al., "Peeking at A/B tests",
/// KDD 2017): the mixture SPRT is valid at every session and over an unbounded horizon, and
/// pays for it: its boundary never comes below |Z| ≈ 3.04 at α = 0.05 (against 1.96 for one
/// look). At its best mixing variance, with looks every 100 sessions and a fixed size of
/// 2,944, 80 % power at the planned effect needs a horizon of 1.77 × the fixed size and
/// 1.05 × on average (integrated by the first helper; a Monte Carlo check agrees, 1.70–1.77 and 1.05), and it has no rule to stop for no difference.
/// Teams look at a dashboard whose figures move by whole batches of sessions, and plan an
/// effect and a power anyway (the fixed-horizon size is what ``SampleSize`` computes), so a
/// test that is valid at looks planned every `lookEvery` sessions up to a bounded N_max loses
/// nothing they use.
///
/// The shape decides where the sessions go. With a look every 100 sessions, a fixed size of
/// 2,944 (the simulation's default) and power 0.8, ``operatingCharacteristics(drift:)``
/// gives, as expected sessions ÷ the fixed size at the planned effect / at twice it, and
/// N_max ÷ the fixed size: Δ = 0 (O'Brien–Fleming) 0.83 / 0.48, 1.39; Δ = 0.25: 0.78 / 0.39,
/// 1.63; Δ = 0.4 (the default) 0.73 / 0.32, 1.94; Δ = 0.45: 0.72 / 0.29, 2.14; Δ = 0.5
/// (Pocock) 0.75 / 0.28, 2.51. Δ = 0.4 is within 0.01 of the best at the planned effect with a
/// shorter N_max than 0.45, and meets 0.4 at twice it; the price is a longest run of about
/// twice the fixed size. Looks between the planned ones show the last planned look's reading.
public struct SequentialDesign: Sendable, Hashable {
    public let alpha: Double
    /// The sequential test's power at the planned effect.
    public let power: Double
    /// The power `fixedSessions` was computed for.
    public let fixedPower: Double
    /// Δ of the boundaries' shape: 0 O'Brien–Fleming's (strict early), 0.5 Pocock's (flat).
    public let shape: Double
    /// Sessions of the fixed-horizon test with `fixedPower` at the planned effect.
    public let fixedSessions: Int
    public let lookEvery: Int
    /// K.
    public let looks: Int
    /// C.
    public let efficacyConstant: Double
    /// θ: the drift of Z at the last look the futility rule is built around.
    public let drift: Double
    /// b_k and a_k (≤ 0: no futility stop), look 1 first.
    public let efficacy: [Double]
    public let futility: [Double]

    /// N_max = K · `lookEvery`.
    public var maxSessions: Int { looks * lookEvery }
    public var times: [Double] { (1...looks).map { Double($0) / Double(looks) } }

    /// The design with `power` at the planned effect, level `alpha` (two-sided), for a
    /// fixed-horizon size `fixedSessions`: the sessions a single look at the end needs for
    /// `fixedPower` at the same level and effect (``SampleSize``), which is all the design
    /// needs to know of the effect.
    public init(
        alpha: Double = 0.05, power: Double = 0.8, fixedSessions: Int, fixedPower: Double? = nil, lookEvery: Int = 100, shape: Double = 0.4
    ) throws(SequentialDesignError) {
        let fixedPower = fixedPower ?? power
        guard alpha > 0, alpha < 0.5 else { throw SequentialDesignError("alpha must be between 0 and 0.5") }
        guard power > 0.5, power < 1, fixedPower > 0.5, fixedPower < 1 else { throw SequentialDesignError("power must be between 0.5 and 1") }
        guard fixedSessions >= 1, lookEvery >= 1 else { throw SequentialDesignError("sessions must be positive") }
        guard shape >= 0, shape <= 0.5 else { throw SequentialDesignError("shape must be 0 to 0.5") }
        self.alpha = alpha
        self.power = power
        self.fixedPower = fixedPower
        self.shape = shape
        self.fixedSessions = fixedSessions
        self.lookEvery = lookEvery
        // Drift of Z per √session at the planned effect: the fixed test has z₁₋α/₂ + z_power at its size.
        let perSession = (Normal.quantile(1 - alpha / 2) + Normal.quantile(fixedPower)) / Double(fixedSessions).squareRoot()
        var looks = max(1, Int((Double(fixedSessions) / Double(lookEvery)).rounded(.up)))
        var seen: Set<Int> = []
        var solved: (constant: Double, drift: Double) = (0, 0)
        // K and θ depend on each other (θ through the boundaries at K looks, K through θ's
        // sessions); a few rounds settle it, and a cycle takes its larger K.
        while true {
            seen.insert(looks)
            let constant = Self.efficacyConstant(alpha: alpha, looks: looks, shape: shape)
            let drift = Self.drift(power: power, constant: constant, looks: looks, shape: shape)
            solved = (constant, drift)
            let needed = max(1, Int(((drift / perSession) * (drift / perSession) / Double(lookEvery)).rounded(.up)))
            if needed == looks { break }
            if seen.contains(needed) {
                if needed < looks { break }
            }
            looks = needed
            if seen.count > 30 { break }
        }
        self.looks = looks
        efficacyConstant = solved.constant
        drift = solved.drift
        let times = (1...looks).map { Double($0) / Double(looks) }
        efficacy = Self.efficacy(constant: solved.constant, times: times, shape: shape)
        futility = Self.futility(constant: solved.constant, drift: solved.drift, times: times, shape: shape)
    }

    static func efficacy(constant: Double, times: [Double], shape: Double) -> [Double] {
        times.map { constant * pow($0, shape - 0.5) }
    }

    static func futility(constant: Double, drift: Double, times: [Double], shape: Double) -> [Double] {
        times.map { drift * $0.squareRoot() - (drift - constant) * pow($0, shape - 0.5) }
    }

    /// C with P(|Z_k| ≥ C · t_k^(Δ−½) at some of K equally spaced looks | no difference) = α:
    /// Pocock's constant for Δ = ½, O'Brien and Fleming's for Δ = 0.
    public static func efficacyConstant(alpha: Double, looks: Int, shape: Double) -> Double {
        let times = (1...looks).map { Double($0) / Double(looks) }
        return bisect(low: Normal.quantile(1 - alpha / 2), high: 8) { constant in
            nullCrossing(constant: constant, times: times, shape: shape) > alpha
        }
    }

    /// P(|Z_k| ≥ C · t_k^(Δ−½) at some look | no difference), with no futility stops.
    static func nullCrossing(constant: Double, times: [Double], shape: Double) -> Double {
        BoundaryCrossing.stops(
            times: times, outer: efficacy(constant: constant, times: times, shape: shape),
            inner: Array(repeating: 0, count: times.count), drift: 0
        ).crossed
    }

    /// The smallest θ whose chance of crossing +b before stopping otherwise is `power`.
    static func drift(power: Double, constant: Double, looks: Int, shape: Double) -> Double {
        let times = (1...looks).map { Double($0) / Double(looks) }
        let efficacy = efficacy(constant: constant, times: times, shape: shape)
        return bisect(low: constant, high: constant + 2 * Normal.quantile(power) + 4) { drift in
            let stops = BoundaryCrossing.stops(
                times: times, outer: efficacy, inner: futility(constant: constant, drift: drift, times: times, shape: shape), drift: drift)
            return stops.upper.reduce(0, +) < power
        }
    }

    /// The boundary of a monotone predicate: `tooLow(x)` true below it, false above.
    static func bisect(low: Double, high: Double, _ tooLow: (Double) -> Bool) -> Double {
        var (low, high) = (low, high)
        for _ in 0..<40 where high - low > 1e-7 {
            let middle = (low + high) / 2
            if tooLow(middle) { low = middle } else { high = middle }
        }
        return (low + high) / 2
    }

    /// The chances of each outcome when Z drifts by `drift` at look K (0: no difference;
    /// ``plannedDrift``: the planned effect), and the expected sessions to a decision.
    public func operatingCharacteristics(drift: Double) -> (b: Double, a: Double, noDifference: Double, expectedSessions: Double) {
        let stops = BoundaryCrossing.stops(times: times, outer: efficacy, inner: futility, drift: drift)
        var expected = 0.0
        for k in 0..<looks { expected += Double((k + 1) * lookEvery) * (stops.upper[k] + stops.lower[k] + stops.inner[k]) }
        return (stops.upper.reduce(0, +), stops.lower.reduce(0, +), stops.inner.reduce(0, +), expected)
    }

    /// The drift of Z at look K under the planned effect: the fixed-horizon drift
    /// z₁₋α/₂ + z_fixedPower scaled to N_max sessions.
    public var plannedDrift: Double {
        (Normal.quantile(1 - alpha / 2) + Normal.quantile(fixedPower)) * (Double(maxSessions) / Double(fixedSessions)).squareRoot()
    }

    /// The always-valid p-value after looks whose largest |Z_k| · t_k^(½−Δ) is `maximum`: the
    /// smallest α′ at which the same-shaped efficacy boundary would have been crossed by now,
    /// P(max_k |Z_k| · t_k^(½−Δ) ≥ `maximum` over all K looks | no difference). It never
    /// rises from look to look, and P(it ever falls to u or below) ≤ u under no difference.
    public func alwaysValidPValue(maximum: Double) -> Double {
        guard maximum > 0 else { return 1 }
        return min(1, Self.nullCrossing(constant: maximum, times: times, shape: shape))
    }
}

public struct SequentialDesignError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
