import BraidCore
import BraidExperiments
import Testing

@Suite("team-draft credit and sign test")
struct TeamDraftCreditTests {
    let teams: [Int: Team] = [10: .a, 11: .b, 12: .b, 13: .a]

    @Test func moreClicksOnATeamWinsTheImpression() {
        #expect(TeamDraftCredit.outcome(teams: teams, clickedPositions: [10]) == .winA)
        #expect(TeamDraftCredit.outcome(teams: teams, clickedPositions: [11, 12, 13]) == .winB)
        #expect(TeamDraftCredit.outcome(teams: teams, clickedPositions: [10, 11]) == .tie)
        #expect(TeamDraftCredit.outcome(teams: teams, clickedPositions: []) == .tie)
    }

    @Test func repeatedAndUnknownPositionsDoNotCredit() {
        #expect(TeamDraftCredit.outcome(teams: teams, clickedPositions: [11, 10, 10, 10]) == .tie)
        #expect(TeamDraftCredit.outcome(teams: teams, clickedPositions: [99, 100, 13]) == .winA)
    }

    @Test func signTestMatchesExactBinomialValues() {
        // 2 * P(X <= 0), X ~ Bin(10, 1/2) = 2/1024.
        #expect(abs(SignTest.twoSidedPValue(winsA: 0, winsB: 10) - 0.001953125) < 1e-12)
        // 2 * P(X <= 5), X ~ Bin(20, 1/2) = 2 * 21700/1048576.
        #expect(abs(SignTest.twoSidedPValue(winsA: 15, winsB: 5) - 2 * 21_700.0 / 1_048_576) < 1e-12)
        #expect(SignTest.twoSidedPValue(winsA: 5, winsB: 5) == 1)
        #expect(SignTest.twoSidedPValue(winsA: 0, winsB: 0) == 1)
    }

    @Test func largeCountsStayFiniteAndAgreeAcrossTheApproximationBoundary() {
        let exact = SignTest.twoSidedPValue(winsA: 49_850, winsB: 50_150)
        let approximate = SignTest.twoSidedPValue(winsA: 49_851, winsB: 50_150)
        #expect(exact.isFinite && approximate.isFinite)
        #expect(abs(exact - approximate) < 0.01)
        #expect(SignTest.twoSidedPValue(winsA: 1_000_000, winsB: 2_000_000) < 1e-10)
    }
}
