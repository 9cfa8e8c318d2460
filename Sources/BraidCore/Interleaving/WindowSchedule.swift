/// The order of teams inside the interleaving window, as O(1) functions of the window
/// position k (0 = the first slot at `start`). The window is treated as unbounded; the
/// planner applies `max_docs` and the end of A on top.
struct WindowSchedule: Sendable {
    private enum Kind: Sendable {
        case pattern(teams: [Team], bPrefix: [Int], aPositions: [Int], bPositions: [Int])
        case teamDraft(seed: UInt64)
    }

    private let kind: Kind

    init(_ configuration: InterleavingConfiguration, seed: UInt64) {
        switch configuration.mode {
        case .teamDraft:
            kind = .teamDraft(seed: seed)
        case .pattern:
            let teams = configuration.pattern
            var bPrefix = [0]
            for team in teams { bPrefix.append(bPrefix[bPrefix.count - 1] + (team == .b ? 1 : 0)) }
            kind = .pattern(
                teams: teams, bPrefix: bPrefix,
                aPositions: teams.indices.filter { teams[$0] == .a },
                bPositions: teams.indices.filter { teams[$0] == .b })
        }
    }

    /// The team of window slot k.
    func team(at k: Int) -> Team {
        switch kind {
        case .pattern(let teams, _, _, _):
            return teams[k % teams.count]
        case .teamDraft(let seed):
            let first = TeamDraft.firstTeam(seed: seed, round: k / 2)
            return k % 2 == 0 ? first : first.other
        }
    }

    /// Number of B slots among window slots 0..<k.
    func bCount(before k: Int) -> Int {
        switch kind {
        case .pattern(let teams, let bPrefix, _, _):
            let perCycle = bPrefix[teams.count]
            return (k / teams.count) * perCycle + bPrefix[k % teams.count]
        case .teamDraft(let seed):
            // Every full round holds exactly one B; a half round holds B when B goes first.
            return k / 2 + (k % 2 == 1 && TeamDraft.firstTeam(seed: seed, round: k / 2) == .b ? 1 : 0)
        }
    }

    /// Window position of the j-th (0-based) slot of `team`.
    func position(ofSlot j: Int, of team: Team) -> Int {
        switch kind {
        case .pattern(let teams, _, let aPositions, let bPositions):
            let positions = team == .a ? aPositions : bPositions
            return (j / positions.count) * teams.count + positions[j % positions.count]
        case .teamDraft(let seed):
            return 2 * j + (TeamDraft.firstTeam(seed: seed, round: j) == team ? 0 : 1)
        }
    }
}

/// The team-draft coin.
public enum TeamDraft {
    /// The team that picks first in `round` of a session seeded with `seed`:
    /// `splitmix64(seed &+ round &* 0x9E3779B97F4A7C15)`, lowest bit 0 → A, 1 → B.
    /// Stable across processes and versions (it is part of the cursor contract), and any
    /// round can be computed alone, so any page can be planned without its predecessors.
    public static func firstTeam(seed: UInt64, round: Int) -> Team {
        var z = seed &+ UInt64(truncatingIfNeeded: round) &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return z & 1 == 0 ? .a : .b
    }
}
