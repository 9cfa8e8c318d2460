/// How a live source orders the matches of a query; a secondary ranking is one profile
/// materialized ahead of time.
public enum RankingProfile: String, NamedCases, Hashable {
    /// Text relevance (bm25 or the engine's own scoring).
    case relevance
    /// Relevance combined with the logarithm of a document's popularity.
    case popularityBoosted = "popularity_boosted"
    /// Matches, newest publication first.
    case newest
}
