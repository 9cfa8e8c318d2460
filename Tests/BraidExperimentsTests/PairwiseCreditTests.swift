import BraidContracts
import BraidCore
import BraidExperiments
import Testing

@Suite("pairwise multileave credit")
struct PairwiseCreditTests {
    @Test func everyPairOfTeamsGetsAWinOrATie() {
        #expect(TeamPair.all(teamCount: 3) == [TeamPair(0, 1), TeamPair(0, 2), TeamPair(1, 2)])
        #expect(TeamPair.all(teamCount: 5).count == 10)
        #expect(TeamPair.all(teamCount: 1).isEmpty)
        let outcomes = PairwiseCredit.outcomes(clicks: [1, 0, 2])
        #expect(outcomes.map(\.pair) == [TeamPair(0, 1), TeamPair(0, 2), TeamPair(1, 2)])
        #expect(outcomes.map(\.outcome) == [.winA, .winB, .winB])
        #expect(PairwiseCredit.outcomes(clicks: [0, 0, 0, 0]).allSatisfy { $0.outcome == .tie })
    }

    @Test func changesOfOneMoreClickAreExactlyTheDifferenceOfOutcomes() {
        // Exhaustively over small click vectors of 2 to 5 teams.
        func vectors(_ teams: Int) -> [[Int]] {
            teams == 0 ? [[]] : vectors(teams - 1).flatMap { prefix in (0...2).map { prefix + [$0] } }
        }
        for teams in 2...5 {
            for clicks in vectors(teams) {
                for team in 0..<teams {
                    var after = clicks
                    after[team] += 1
                    let before = Dictionary(uniqueKeysWithValues: PairwiseCredit.outcomes(clicks: clicks).map { ($0.pair, $0.outcome) })
                    let expected = PairwiseCredit.outcomes(clicks: after).filter { before[$0.pair] != $0.outcome }
                    let changes = PairwiseCredit.changes(clicks: clicks, adding: team)
                    #expect(changes.map(\.pair) == expected.map(\.pair), "\(clicks) + \(team)")
                    #expect(changes.map(\.to) == expected.map(\.outcome))
                    #expect(changes.map(\.from) == changes.map { before[$0.pair]! })
                }
            }
        }
    }

    @Test func impressionCreditCountsWindowClicksPerTeamOnce() {
        let token = ImpressionToken(experiment: "m", offset: 10, slotTeams: [0, 2, 1, 0, 2, 1, 0], teamCount: 3, creditWindow: 11..<17, nonce: 3)
        // 10 is before the window; 13 twice counts once; 30 was not shown.
        #expect(ImpressionCredit.clicks(token, clickedPositions: [10, 11, 13, 13, 14, 30]) == [1, 0, 2])
        let pairs = ImpressionCredit.pairwise(token, clickedPositions: [10, 11, 13, 13, 14, 30])
        #expect(pairs.map(\.outcome) == [.winA, .winB, .winB])
        #expect(token.team(at: 11) == nil, "a multileave has no A/B view")
        var tally = PairwiseTally(teamCount: 3)
        tally.record(clicks: [1, 0, 2])
        tally.record(clicks: [0, 0, 0])
        tally.record(clicks: [0, 1, 0])
        #expect(tally[TeamPair(0, 1)] == PreferenceOutcome(winsA: 1, winsB: 1, ties: 1))
        #expect(tally[TeamPair(0, 2)] == PreferenceOutcome(winsA: 0, winsB: 1, ties: 2))
        #expect(tally[TeamPair(1, 2)] == PreferenceOutcome(winsA: 1, winsB: 1, ties: 1))
    }
}
