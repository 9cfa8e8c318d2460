import BraidContracts
/// Team-draft credit of one impression, from its token and the positions clicked: only the
/// token's credit window is evidence (``ImpressionToken/creditWindow``), and each position
/// counts once.
public enum ImpressionCredit {
    /// Credited clicks per team (index = team, `token.teamCount` of them). Positions the page
    /// did not show or showed outside the window do not count (a forged, stale or A-only
    /// click cannot credit); a version-1 token credits nothing.
    public static func clicks(_ token: ImpressionToken, clickedPositions: some Sequence<Int>) -> [Int] {
        var clicks = [Int](repeating: 0, count: token.teamCount)
        for position in Set(clickedPositions) where token.isCredited(at: position) {
            if let team = token.teamIndex(at: position) { clicks[team] += 1 }
        }
        return clicks
    }

    /// Two-ranking outcome: A (team 0) against B (team 1). For a multileave, the outcome of
    /// its pair (0, 1); use ``pairwise(_:clickedPositions:)`` for every pair.
    public static func outcome(_ token: ImpressionToken, clickedPositions: some Sequence<Int>) -> TeamDraftOutcome {
        PairwiseCredit.outcome(TeamPair(0, 1), clicks: clicks(token, clickedPositions: clickedPositions))
    }

    /// Every pair's outcome.
    public static func pairwise(_ token: ImpressionToken, clickedPositions: some Sequence<Int>) -> [(pair: TeamPair, outcome: TeamDraftOutcome)] {
        PairwiseCredit.outcomes(clicks: clicks(token, clickedPositions: clickedPositions))
    }
}
