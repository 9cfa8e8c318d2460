/// The cached rankings' share of a team-draft multileave, drafted once per session: which
/// cached document each pick takes and where it falls among the live ranking's picks.
///
/// The sequential definition (walk the list from position 0): before `start`, the live
/// ranking. From `start`, rounds r = 0, 1, …: the teams pick in the order
/// ``TeamDraft/order(seed:round:teams:)``; the live team takes its next document, a cached
/// team its best-ranked candidate (first `max_docs`) not placed yet by any team, and a team
/// with nothing left sits the round out. Once every cached team is out, the live ranking
/// alone; once the live ranking is out (its total T is reached), the cached picks alone.
///
/// The live ranking is asked for with every placed cached document excluded, so it never
/// collides with a cached pick, and the cached picks (documents, order, rounds) do not depend
/// on the live ranking at all. This type computes them once, O(Σ candidates + rounds · k); the
/// planner then needs only binary searches over them, whatever the page's offset.
public struct MultileaveDraft: Sendable {
    /// One cached pick, in list order.
    struct Pick: Sendable, Hashable {
        var team: Int
        var rank: Int
        /// Live picks before this one if the live ranking never ran out (those before `start`
        /// included): `start` + earlier rounds + 1 when the live team picked first this round.
        var liveBefore: Int
    }

    public let configuration: MultileaveConfiguration
    /// 1 + the number of cached rankings.
    public let teamCount: Int
    /// Every placed cached document (M of them), in pick order: what the live query excludes.
    public let placedIDs: [String]
    let picks: [Pick]
    /// Rounds, from the first, in which every cached team picked.
    let fullCachedRounds: Int

    /// - Parameters:
    ///   - rankings: the document ids of each cached ranking, best first, team 1 first; at most
    ///     ``MultileaveConfiguration/maxCachedRankings``.
    ///   - seed: the session's team-draft seed (carried in its cursor).
    public init(configuration: MultileaveConfiguration, rankings: [[String]], seed: UInt64) {
        precondition(rankings.count <= MultileaveConfiguration.maxCachedRankings, "at most \(MultileaveConfiguration.maxCachedRankings) cached rankings")
        self.configuration = configuration
        teamCount = rankings.count + 1
        let candidates = rankings.map { Array($0.prefix(configuration.candidateCount($0.count))) }
        var next = [Int](repeating: 0, count: candidates.count)
        var placed: Set<String> = []
        var placedIDs: [String] = []
        var picks: [Pick] = []
        var fullRounds: Int?

        /// Moves a team's cursor past documents other teams placed; false when it has none left.
        func hasCandidate(_ team: Int) -> Bool {
            while next[team] < candidates[team].count, placed.contains(candidates[team][next[team]]) { next[team] += 1 }
            return next[team] < candidates[team].count
        }

        var round = 0
        while candidates.indices.contains(where: hasCandidate) {
            var livePicked = false
            var everyonePicked = true
            for team in TeamDraft.order(seed: seed, round: round, teams: teamCount) {
                if team == 0 {
                    livePicked = true
                    continue
                }
                let cached = team - 1
                guard hasCandidate(cached) else {
                    everyonePicked = false
                    continue
                }
                let id = candidates[cached][next[cached]]
                placed.insert(id)
                placedIDs.append(id)
                picks.append(Pick(team: team, rank: next[cached], liveBefore: configuration.start + round + (livePicked ? 1 : 0)))
                next[cached] += 1
            }
            if !everyonePicked, fullRounds == nil { fullRounds = round }
            round += 1
        }
        self.placedIDs = placedIDs
        self.picks = picks
        self.fullCachedRounds = fullRounds ?? round
    }

    /// M: cached documents placed in the whole list.
    public var placedCount: Int { picks.count }

    /// The planner for a live ranking of `liveTotal` documents (placed cached ones excluded),
    /// nil while unknown (the list is then treated as endless).
    public func planner(liveTotal: Int?) -> MultileavePlanner {
        MultileavePlanner(draft: self, liveTotal: liveTotal)
    }
}
