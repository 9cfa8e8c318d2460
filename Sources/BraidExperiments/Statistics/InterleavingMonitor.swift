import Foundation

/// What a team plans an interleaving experiment for, on the sign test's own scale: the
/// sessions that count are the *decided* ones (one team got more credited clicks; a tie says
/// nothing about which ranking is better), and the effect is B's net share of them,
/// m = (wins_B − wins_A) / (wins_A + wins_B) (0.1: B wins 55 % of them, A 45 %).
///
/// Why decided sessions and not all sessions: the information of the sign test is the number
/// of decided sessions, so looks spaced by it are equally spaced in information, which is what
/// ``SequentialDesign`` assumes, whatever share of sessions end in a tie; and the size for a
/// margin m needs no guess of that share.
public struct InterleavingPlan: Sendable, Hashable {
    /// m: the smallest net share of decided sessions the team wants to detect.
    public var margin: Double
    public var power: Double
    /// Decided sessions between looks.
    public var lookEvery: Int
    public var alpha: Double

    public init(margin: Double, power: Double, lookEvery: Int, alpha: Double = 0.05) {
        self.margin = margin
        self.power = power
        self.lookEvery = lookEvery
        self.alpha = alpha
    }

    /// Decided sessions of the fixed-horizon sign test with `power` at the margin
    /// (``SampleSize/interleaving(winA:winB:alpha:power:)`` with every session decided).
    public var fixedSessions: Int? {
        guard margin > 0, margin < 1 else { return nil }
        return SampleSize.interleaving(winA: (1 - margin) / 2, winB: (1 + margin) / 2, alpha: alpha, power: power)
    }

    /// The group-sequential design (Δ = 0.4, the default of ``SequentialDesign``).
    public func design() throws(SequentialDesignError) -> SequentialDesign {
        guard let fixedSessions else { throw SequentialDesignError("the margin must be between 0 and 1") }
        return try SequentialDesign(alpha: alpha, power: power, fixedSessions: fixedSessions, lookEvery: lookEvery)
    }
}

/// One look taken of one pair of teams: its number k and the pair's wins then (the decided
/// sessions are their sum).
public struct PairLook: Sendable, Hashable {
    public var look: Int
    public var winsFirst: Int
    public var winsSecond: Int

    public init(look: Int, winsFirst: Int, winsSecond: Int) {
        self.look = look
        self.winsFirst = winsFirst
        self.winsSecond = winsSecond
    }

    public var decided: Int { winsFirst + winsSecond }

    /// Z = (w₂ − w₁) / √(w₁ + w₂) (positive when the second team is better) and the estimate of
    /// the net share (w₂ − w₁) / (w₁ + w₂) with the standard error 1 / √(w₁ + w₂): the largest a
    /// ±1 outcome can have, so the confidence sequence never collapses to a point (all wins for
    /// one side would give the plug-in error 0) and is conservative.
    public var statistic: SequentialStatistic {
        guard decided > 0 else { return SequentialStatistic(z: 0, estimate: 0, standardError: .infinity) }
        let root = Double(decided).squareRoot()
        let difference = Double(winsSecond - winsFirst)
        return SequentialStatistic(z: difference / root, estimate: difference / Double(decided), standardError: 1 / root)
    }
}

/// The group-sequential test of an interleaving experiment read from its running counters.
///
/// Why the looks are recorded and not recomputed: the decision at look k depends on Z at every
/// look before it (a crossing at look 3 stays a decision at look 9, whatever Z is then), and
/// Z at an earlier look cannot be recovered from today's counters. So each look's wins are
/// kept (the experiment store keeps them next to the counters) and the test is replayed from
/// them. Look k of a pair is taken the first time its outcome is read after the pair's decided
/// sessions reach k · `lookEvery` (the console's sampler reads every
/// `console.sample_interval_ms`, so that is soon after); a look no read saw is skipped
/// (``SequentialTest/look(_:at:)``: the false-decision rate stays at most α). The statistic is
/// that of the counters at the read, a few sessions past k · `lookEvery`.
public enum InterleavingMonitor {
    /// The look to record now for a pair with these wins, given the looks already recorded:
    /// k = min(K, ⌊decided / lookEvery⌋) when it is past the latest recorded look; nil otherwise.
    public static func dueLook(design: SequentialDesign, recorded: [PairLook], winsFirst: Int, winsSecond: Int) -> PairLook? {
        let look = min(design.looks, (winsFirst + winsSecond) / design.lookEvery)
        guard look >= 1, look > recorded.map(\.look).max() ?? 0 else { return nil }
        return PairLook(look: look, winsFirst: winsFirst, winsSecond: winsSecond)
    }

    /// The pair's test after its recorded looks, in order (looks outside 1…K are ignored).
    public static func test(design: SequentialDesign, looks: [PairLook]) -> SequentialTest {
        testOfLooks(design: design, looks: looks.map { ($0.look, $0.statistic) })
    }

    /// The test after looks given as (number, statistic), in any order: an interleaving pair's
    /// or a layout experiment's (whose looks hold user metrics, not wins).
    public static func testOfLooks(design: SequentialDesign, looks: [(look: Int, statistic: SequentialStatistic)]) -> SequentialTest {
        var test = SequentialTest(design: design)
        for look in looks.sorted(by: { $0.look < $1.look }) { test.look(look.statistic, at: look.look) }
        return test
    }

    /// The decision of every pair: a pair's own test's when there is one pair; under
    /// multileaving, Holm's procedure across all pairs (``PairwiseSequential``), so that the
    /// chance of any wrong A or B stays at most α.
    public static func decisions(_ tests: [SequentialTest], alpha: Double) -> [SequentialDecision] {
        if tests.count == 1 { return [tests[0].decision] }
        return PairwiseSequential.decisions(tests, alpha: alpha)
    }
}
