import BraidExperiments

/// A ranking source in memory: per query a live ranking and a cached one, which overlap.
struct InMemoryRankings: RankingSource {
    var live: [String: [String]]
    var cached: [String: [String]]

    func live(query: String, excluding: [String], from: Int, size: Int) async throws -> (ids: [String], total: Int) {
        let excluded = Set(excluding)
        let remaining = (live[query] ?? []).filter { !excluded.contains($0) }
        return (Array(remaining.dropFirst(from).prefix(size)), remaining.count)
    }

    func cached(query: String, size: Int) async throws -> [String] {
        Array((cached[query] ?? []).prefix(size))
    }

    /// Three queries of 300 live documents; each cached ranking holds 50, every fifth of
    /// them also in the live ranking's first 100. A fourth query matches nothing.
    static let sample: InMemoryRankings = {
        var live: [String: [String]] = [:]
        var cached: [String: [String]] = [:]
        for query in ["alpha", "beta", "gamma"] {
            live[query] = (0..<300).map { "\(query)-l\($0)" }
            cached[query] = (0..<50).map { $0 % 5 == 0 ? "\(query)-l\($0 * 2)" : "\(query)-c\($0)" }
        }
        return InMemoryRankings(live: live, cached: cached)
    }()

    static let queries = ["alpha", "beta", "gamma", "nothing"]
}
