import BraidCore
import BraidExperiments
import BraidSources

/// The simulation's rankings from the demo corpus, as the running system computes them: the
/// live ranking is the `relevance` profile of the SQLite FTS5 source, the cached ranking the
/// `popularity_boosted` profile (that of the default `featured` ranking).
struct CorpusRankingSource: RankingSource {
    let source: SQLiteSearchSource

    func live(query: String, excluding: [String], from: Int, size: Int) async throws -> (ids: [String], total: Int) {
        let result = try await source.search(SearchRequest(query: query, excluding: excluding, from: from, size: size, profile: .relevance))
        return (result.hits.map(\.id), result.total)
    }

    func cached(query: String, size: Int) async throws -> [String] {
        try await source.search(SearchRequest(query: query, from: 0, size: size, profile: .popularityBoosted)).hits.map(\.id)
    }
}
