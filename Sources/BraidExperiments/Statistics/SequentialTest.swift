import Foundation

/// What a sequential test says after a look.
public enum SequentialDecision: String, Sendable, Hashable, CaseIterable {
    /// A is better (the statistic crossed the lower boundary).
    case a = "A"
    /// B is better.
    case b = "B"
    /// No difference as large as the planned effect: the statistic fell inside the futility
    /// boundary, or the last look came without a crossing. The design's power bounds how often
    /// this is said when the planned effect is there (1 − power).
    case noDifference = "no difference"
    /// Not yet: read the always-valid p-value and the confidence sequence.
    case keepGoing = "keep going"
}

/// One look's statistic, standardized so that Z is N(0, 1) when there is no difference and
/// positive when B is better, with the effect it estimates and that estimate's standard error.
public struct SequentialStatistic: Sendable, Hashable {
    public var z: Double
    public var estimate: Double
    public var standardError: Double

    public init(z: Double, estimate: Double, standardError: Double) {
        self.z = z
        self.estimate = estimate
        self.standardError = standardError
    }

    /// Interleaving: B's wins minus A's per session, (w_B − w_A) / n. Z = (w_B − w_A) / √(w_A + w_B),
    /// the sign test's normal form (ties carry no information); the standard error,
    /// √(w_A + w_B − (w_B − w_A)² / n) / n, is the estimate's own.
    public static func interleaving(winsA: Int, winsB: Int, sessions: Int) -> SequentialStatistic {
        let decided = Double(winsA + winsB)
        guard sessions > 0, decided > 0 else { return SequentialStatistic(z: 0, estimate: 0, standardError: .infinity) }
        let n = Double(sessions)
        let difference = Double(winsB - winsA)
        let variance = max(0, decided - difference * difference / n)
        return SequentialStatistic(z: difference / decided.squareRoot(), estimate: difference / n, standardError: variance.squareRoot() / n)
    }

    /// An A/B test randomized by user: the treatment's mean user metric minus the control's.
    /// Z is ``UnitLevelTest``'s, signed (variance pooled over both arms, as under no
    /// difference); the standard error √(v_c / n_c + v_t / n_t) is the estimate's own.
    public static func abTest(control: UnitMetric, treatment: UnitMetric) -> SequentialStatistic {
        guard control.count > 0, treatment.count > 0 else { return SequentialStatistic(z: 0, estimate: 0, standardError: .infinity) }
        let difference = treatment.mean - control.mean
        let pooled = (control + treatment).variance * (1 / Double(control.count) + 1 / Double(treatment.count))
        let own = control.variance / Double(control.count) + treatment.variance / Double(treatment.count)
        return SequentialStatistic(
            z: pooled > 0 ? difference / pooled.squareRoot() : 0, estimate: difference, standardError: own.squareRoot())
    }
}

/// The reading of a ``SequentialTest`` after its latest look.
public struct SequentialReading: Sendable, Hashable {
    /// Looks taken (the k of the latest) and the sessions they cover.
    public var look: Int
    public var sessions: Int
    public var decision: SequentialDecision
    /// The always-valid p-value (``SequentialDesign/alwaysValidPValue(maximum:)``).
    public var pValue: Double
    /// The confidence sequence: estimate ± b_k · standard error, the repeated confidence
    /// interval of Jennison and Turnbull, which covers the effect at every look at once with
    /// probability at least 1 − α. Nil before the first look.
    public var interval: ClosedRange<Double>?
}

/// One comparison watched look by look with a ``SequentialDesign``: call ``look(_:)`` after
/// every `lookEvery` sessions. The first look that decides fixes the decision (a team stops
/// there); later looks still lower the always-valid p-value, which Holm's procedure across
/// pairs needs.
public struct SequentialTest: Sendable, Hashable {
    public let design: SequentialDesign
    public private(set) var looks = 0
    public private(set) var decision = SequentialDecision.keepGoing
    /// The look that decided, 1-based.
    public private(set) var decidedAt: Int?
    /// max_k |Z_k| · t_k^(½−Δ) so far, and the sign of Z there.
    public private(set) var maximum = 0.0
    public private(set) var favoursB = true
    public private(set) var interval: ClosedRange<Double>?

    public init(design: SequentialDesign) {
        self.design = design
    }

    /// The design's decision at look `look` (1-based) for this Z, ignoring earlier looks.
    public static func decision(design: SequentialDesign, look: Int, z: Double) -> SequentialDecision {
        precondition(look >= 1 && look <= design.looks, "looks are 1 to K")
        if abs(z) >= design.efficacy[look - 1] { return z > 0 ? .b : .a }
        if look == design.looks { return .noDifference }
        let futility = design.futility[look - 1]
        return futility > 0 && abs(z) < futility ? .noDifference : .keepGoing
    }

    /// Takes the next look; after the last one (K) the test has ended and the call changes nothing.
    @discardableResult
    public mutating func look(_ statistic: SequentialStatistic) -> SequentialDecision {
        look(statistic, at: looks + 1)
    }

    /// Takes look `look` (1-based), skipping the planned looks between the latest one and it: a
    /// look nobody took. Skipping only removes chances to cross, so the chance of a false A or B
    /// stays at most α; the power is a little lower. A look not after the latest one, or after
    /// K, changes nothing.
    @discardableResult
    public mutating func look(_ statistic: SequentialStatistic, at look: Int) -> SequentialDecision {
        guard look > looks, look <= design.looks else { return decision }
        looks = look
        let time = Double(looks) / Double(design.looks)
        let scaled = abs(statistic.z) * pow(time, 0.5 - design.shape)
        if scaled > maximum {
            maximum = scaled
            favoursB = statistic.z > 0
        }
        let halfWidth = design.efficacy[looks - 1] * statistic.standardError
        if halfWidth.isFinite { interval = (statistic.estimate - halfWidth)...(statistic.estimate + halfWidth) }
        if decision == .keepGoing {
            decision = Self.decision(design: design, look: looks, z: statistic.z)
            if decision != .keepGoing { decidedAt = looks }
        }
        return decision
    }

    public var pValue: Double { design.alwaysValidPValue(maximum: maximum) }

    public var reading: SequentialReading {
        SequentialReading(look: looks, sessions: looks * design.lookEvery, decision: decision, pValue: pValue, interval: interval)
    }
}

/// Holm's step-down procedure (1979): the family-wise error stays at most α whatever the
/// dependence between the p-values, and it rejects everything Bonferroni does and more.
public enum Holm {
    /// Which hypotheses are rejected at family-wise level α: with the p-values sorted,
    /// p₍₁₎ ≤ … ≤ p₍ₘ₎, reject H₍ᵢ₎ while p₍ⱼ₎ ≤ α / (m − j + 1) for every j ≤ i.
    public static func rejections(_ pValues: [Double], alpha: Double) -> [Bool] {
        let order = pValues.indices.sorted { (pValues[$0], $0) < (pValues[$1], $1) }
        var rejected = Array(repeating: false, count: pValues.count)
        for (rank, index) in order.enumerated() {
            guard pValues[index] <= alpha / Double(pValues.count - rank) else { break }
            rejected[index] = true
        }
        return rejected
    }
}

/// Under multileaving every pair of rankings has its own ``SequentialTest`` over the same
/// sessions. A pair is decided A or B only when Holm's procedure over all pairs' always-valid
/// p-values rejects it at α: an always-valid p-value is a valid p-value at every look, and
/// Holm's rejections only grow as the p-values fall, so the chance that any pair is ever
/// wrongly called stays at most α. A pair not rejected says "no difference" when its own test
/// does (futility is non-binding, so it does not touch the error across pairs), else "keep going".
public enum PairwiseSequential {
    public static func decisions(_ pairs: [SequentialTest], alpha: Double) -> [SequentialDecision] {
        let rejected = Holm.rejections(pairs.map(\.pValue), alpha: alpha)
        return zip(pairs, rejected).map { pair, rejected in
            if rejected { return pair.favoursB ? .b : .a }
            if pair.decision == .noDifference || pair.looks == pair.design.looks { return .noDifference }
            return .keepGoing
        }
    }
}
