/// How the live ranking and up to four cached rankings are multileaved (team-draft
/// multileaving, Schuth et al., CIKM 2014): the same `start` and `max_docs` as two-ranking
/// interleaving, always in team-draft mode (a fixed pattern cannot make k + 1 teams comparable).
public struct MultileaveConfiguration: Sendable, Hashable, Codable {
    /// Cached rankings per list at most; with the live ranking, five teams.
    public static let maxCachedRankings = 4

    /// Global 0-based position where the drafting begins; earlier slots are the live ranking's.
    public var start: Int
    /// Most documents taken from each cached ranking (its first `max_docs`); nil takes all.
    public var maxDocs: Int?

    public init(start: Int = 0, maxDocs: Int? = nil) throws(InterleavingConfigurationError) {
        guard start >= 0 else { throw .negativeStart }
        if let maxDocs, maxDocs < 0 { throw .negativeMaxDocs }
        self.start = start
        self.maxDocs = maxDocs
    }

    /// Checks the cached rankings of one multileave, in team order (team 1 is the first):
    /// one to four, no ranking twice.
    public static func validate(rankings: [String]) throws(MultileaveConfigurationError) {
        guard !rankings.isEmpty else { throw .noCachedRankings }
        guard rankings.count <= maxCachedRankings else { throw .tooManyCachedRankings(rankings.count) }
        var seen: Set<String> = []
        for ranking in rankings where !seen.insert(ranking).inserted { throw .duplicateRanking(ranking) }
    }

    /// Candidates of a cached ranking of `count` documents.
    public func candidateCount(_ count: Int) -> Int {
        min(max(0, count), maxDocs ?? Int.max)
    }

    /// Stable across processes and releases (FNV-1a 64 over a canonical text, like
    /// ``InterleavingConfiguration/stableHash(ranking:)``, with its own prefix so the two
    /// never collide by construction), for cursors: a page is never planned with other
    /// rankings, in another order, or another configuration than page 1.
    public func stableHash(rankings: [String]) -> UInt64 {
        let canonical = "multileave-v1|\(rankings.joined(separator: ","))|\(start)|\(maxDocs.map(String.init) ?? "all")"
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in canonical.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }
}

public enum MultileaveConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    case noCachedRankings
    case tooManyCachedRankings(Int)
    case duplicateRanking(String)

    public var description: String {
        switch self {
        case .noCachedRankings: "a multileave needs at least one cached ranking"
        case .tooManyCachedRankings(let count):
            "a multileave takes at most \(MultileaveConfiguration.maxCachedRankings) cached rankings, not \(count)"
        case .duplicateRanking(let name): "the cached ranking '\(name)' is listed twice"
        }
    }
}
