import BraidExperiments
import Foundation
import Testing

/// The sequential test read from an experiment's running counters: which look is due, the
/// replay of recorded looks (a crossing stays a decision), and Holm across pairs.
@Suite("interleaving monitor")
struct InterleavingMonitorTests {
    let design: SequentialDesign

    init() throws {
        design = try InterleavingPlan(margin: 0.5, power: 0.8, lookEvery: 2).design()
    }

    @Test func thePlanIsOnDecidedSessions() throws {
        // Net share 0.5: B wins 75 % of the decided sessions; the sign test's size for that.
        let plan = InterleavingPlan(margin: 0.5, power: 0.8, lookEvery: 2)
        #expect(plan.fixedSessions == SampleSize.interleaving(winA: 0.25, winB: 0.75, alpha: 0.05, power: 0.8))
        #expect(design.lookEvery == 2 && design.maxSessions == 2 * design.looks && design.looks > 7)
        #expect(InterleavingPlan(margin: 0, power: 0.8, lookEvery: 2).fixedSessions == nil)
    }

    @Test func aLookIsDueOncePerIntervalOfDecidedSessionsUpToK() {
        #expect(InterleavingMonitor.dueLook(design: design, recorded: [], winsFirst: 0, winsSecond: 1) == nil)
        #expect(InterleavingMonitor.dueLook(design: design, recorded: [], winsFirst: 1, winsSecond: 2) == PairLook(look: 1, winsFirst: 1, winsSecond: 2))
        let first = [PairLook(look: 1, winsFirst: 1, winsSecond: 2)]
        #expect(InterleavingMonitor.dueLook(design: design, recorded: first, winsFirst: 1, winsSecond: 2) == nil)
        // Reads that missed looks 2 to 4 take look 5.
        #expect(InterleavingMonitor.dueLook(design: design, recorded: first, winsFirst: 4, winsSecond: 6)?.look == 5)
        // Past N_max the last look is K, once.
        let beyond = 10 * design.maxSessions
        #expect(InterleavingMonitor.dueLook(design: design, recorded: first, winsFirst: 0, winsSecond: beyond)?.look == design.looks)
        #expect(InterleavingMonitor.dueLook(design: design, recorded: [PairLook(look: design.looks, winsFirst: 0, winsSecond: 9)], winsFirst: 0, winsSecond: beyond) == nil)
    }

    @Test func aCrossingStaysADecisionWhateverLaterLooksSay() {
        // 14 wins of B at look 7: √14 ≈ 3.74 is past B's boundary there.
        #expect(design.efficacy[6] < 14.0.squareRoot())
        let crossed = [PairLook(look: 1, winsFirst: 0, winsSecond: 2), PairLook(look: 7, winsFirst: 0, winsSecond: 14)]
        let test = InterleavingMonitor.test(design: design, looks: crossed)
        #expect(test.decision == .b && test.decidedAt == 7 && test.looks == 7)
        let caughtUp = InterleavingMonitor.test(design: design, looks: crossed + [PairLook(look: 17, winsFirst: 20, winsSecond: 14)])
        #expect(caughtUp.decision == .b && caughtUp.decidedAt == 7 && caughtUp.looks == 17)
        #expect(caughtUp.pValue <= test.pValue)
        // Today's totals alone (look 17 only) do not say B: the recorded looks are what decide.
        let totalsOnly = InterleavingMonitor.test(design: design, looks: [PairLook(look: 17, winsFirst: 20, winsSecond: 14)])
        #expect(totalsOnly.decision != .b)
        // The confidence sequence: (14 − 0)/14 ± b₇/√14, clamped by the caller.
        let interval = try! #require(test.interval)
        #expect(abs(interval.lowerBound - (1 - design.efficacy[6] / 14.0.squareRoot())) < 1e-9)
    }

    @Test func multileavePairsAreDecidedByHolm() throws {
        // A look that says B alone with an always-valid p-value above α/2: Holm across two such
        // pairs needs the smaller below α/2, so both keep going; with one far below, both say B.
        var barely: SequentialTest?
        search: for look in 1..<design.looks {
            for winsFirst in 0...look {
                let test = InterleavingMonitor.test(design: design, looks: [PairLook(look: look, winsFirst: winsFirst, winsSecond: 2 * look - winsFirst)])
                if test.decision == .b, test.pValue > 0.025 {
                    barely = test
                    break search
                }
            }
        }
        let single = try #require(barely, "no look of this design crosses with p between α/2 and α")
        #expect(InterleavingMonitor.decisions([single], alpha: 0.05) == [.b])
        #expect(InterleavingMonitor.decisions([single, single], alpha: 0.05) == [.keepGoing, .keepGoing])
        let strong = InterleavingMonitor.test(design: design, looks: [PairLook(look: 20, winsFirst: 0, winsSecond: 40)])
        #expect(strong.pValue < 0.001)
        #expect(InterleavingMonitor.decisions([strong, single], alpha: 0.05) == [.b, .b])
    }
}
