/// Two teams of one comparison, `first < second`: for two-ranking interleaving the pair
/// (0, 1) = (A, B); a multileave of k + 1 teams compares every pair of them.
public struct TeamPair: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let first: Int
    public let second: Int

    public init(_ first: Int, _ second: Int) {
        precondition(first >= 0 && first < second, "a team pair is two different teams, the lower first")
        self.first = first
        self.second = second
    }

    /// Every pair among `teamCount` teams, in order (0,1), (0,2), …, (1,2), ….
    public static func all(teamCount: Int) -> [TeamPair] {
        guard teamCount >= 2 else { return [] }
        return (0..<(teamCount - 1)).flatMap { first in ((first + 1)..<teamCount).map { TeamPair(first, $0) } }
    }

    public static func < (lhs: TeamPair, rhs: TeamPair) -> Bool {
        (lhs.first, lhs.second) < (rhs.first, rhs.second)
    }

    public var description: String { "\(first)-\(second)" }
}

/// Team-draft multileave credit (Schuth et al., CIKM 2014): per impression, each team's
/// credited clicks; then every pair of teams gets a win for the team with more clicks, or a
/// tie. Outcomes of a pair use ``TeamDraftOutcome`` with A the pair's first team.
public enum PairwiseCredit {
    public static func outcome(_ pair: TeamPair, clicks: [Int]) -> TeamDraftOutcome {
        let first = clicks.indices.contains(pair.first) ? clicks[pair.first] : 0
        let second = clicks.indices.contains(pair.second) ? clicks[pair.second] : 0
        if first > second { return .winA }
        if second > first { return .winB }
        return .tie
    }

    /// The outcome of every pair of `clicks.count` teams.
    public static func outcomes(clicks: [Int]) -> [(pair: TeamPair, outcome: TeamDraftOutcome)] {
        TeamPair.all(teamCount: clicks.count).map { ($0, outcome($0, clicks: clicks)) }
    }

    /// What one more credited click on `team` changes: the pairs whose outcome moves, from
    /// what to what. An incremental store moves the impression between those counters (every
    /// impression starts as a tie of every pair), as the experiment store's credit script does.
    public static func changes(clicks: [Int], adding team: Int) -> [(pair: TeamPair, from: TeamDraftOutcome, to: TeamDraftOutcome)] {
        guard clicks.indices.contains(team) else { return [] }
        var after = clicks
        after[team] += 1
        return TeamPair.all(teamCount: clicks.count).compactMap { pair in
            guard pair.first == team || pair.second == team else { return nil }
            let from = outcome(pair, clicks: clicks)
            let to = outcome(pair, clicks: after)
            return from == to ? nil : (pair, from, to)
        }
    }
}

/// The outcome of an experiment per pair of teams, accumulated over impressions.
public struct PairwiseTally: Sendable, Hashable {
    public private(set) var teamCount: Int
    public private(set) var outcomes: [TeamPair: PreferenceOutcome]

    public init(teamCount: Int) {
        self.teamCount = teamCount
        outcomes = Dictionary(uniqueKeysWithValues: TeamPair.all(teamCount: teamCount).map { ($0, PreferenceOutcome(winsA: 0, winsB: 0, ties: 0)) })
    }

    /// One impression's credited clicks per team (``ImpressionCredit/clicks(_:clickedPositions:)``).
    public mutating func record(clicks: [Int]) {
        precondition(clicks.count == teamCount, "clicks of \(clicks.count) teams in a tally of \(teamCount)")
        for (pair, outcome) in PairwiseCredit.outcomes(clicks: clicks) { outcomes[pair]?.record(outcome) }
    }

    public subscript(pair: TeamPair) -> PreferenceOutcome? { outcomes[pair] }
}
