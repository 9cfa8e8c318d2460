import BraidCore

/// Standard team-draft credit for one impression: the team whose items got more clicks
/// wins it; equal clicks (including none) is a tie.
public enum TeamDraftOutcome: String, Sendable, Hashable, Codable {
    case winA = "win_a"
    case winB = "win_b"
    case tie
}

public enum TeamDraftCredit {
    /// Credit over positions the caller already knows to be evidence. Impressions carry their
    /// credit window: use ``ImpressionCredit``, which applies it.
    /// - Parameters:
    ///   - teams: the team of every credited position of the impression.
    ///   - clickedPositions: positions clicked; each position counts once, and positions the
    ///     impression did not show are ignored (a forged or stale click cannot credit).
    public static func outcome(teams: [Int: Team], clickedPositions: some Sequence<Int>) -> TeamDraftOutcome {
        var clicksA = 0
        var clicksB = 0
        for position in Set(clickedPositions) {
            switch teams[position] {
            case .a?: clicksA += 1
            case .b?: clicksB += 1
            case nil: continue
            }
        }
        if clicksA > clicksB { return .winA }
        if clicksB > clicksA { return .winB }
        return .tie
    }
}
