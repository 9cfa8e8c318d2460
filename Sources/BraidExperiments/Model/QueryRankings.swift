/// Where the simulation gets its rankings: the live backend and the cached ranking of a
/// query, as the gateway would see them. The CLI answers it from the demo corpus (SQLite
/// FTS5); tests answer it from memory.
public protocol RankingSource: Sendable {
    /// The live ranking of `query` from `from`, `size` ids, `excluding` removed, and the
    /// number of matches without them (T).
    func live(query: String, excluding: [String], from: Int, size: Int) async throws -> (ids: [String], total: Int)
    /// The first `size` ids of the cached (secondary) ranking of `query`.
    func cached(query: String, size: Int) async throws -> [String]
}

/// Which ranking the simulated users prefer.
public enum PreferredRanking: String, Sendable, Hashable, CaseIterable {
    /// The live ranking A.
    case live
    /// The cached ranking B (the new ranking under test).
    case cached
}

/// One query's rankings, loaded once, with each document marked as preferred or not.
public struct QueryRankings: Sendable, Hashable {
    public var query: String
    /// A/B control: the live ranking's first page.
    public var live: [String]
    /// A/B treatment: the cached ranking's first page.
    public var cachedPage: [String]
    /// The cached ranking's placed documents (B of the interleaving).
    public var cached: [String]
    /// The live ranking with B excluded: its first documents and its total T.
    public var liveExcludingCached: [String]
    public var liveExcludingCachedTotal: Int

    /// Documents of the preferred ranking: B's placed documents, or as many of the live
    /// ranking's first documents.
    public var preferredDocuments: Set<String>

    public init(
        query: String, live: [String], cached: [String], liveExcludingCached: [String], liveExcludingCachedTotal: Int,
        pageSize: Int, preferred: PreferredRanking
    ) {
        self.query = query
        self.live = Array(live.prefix(pageSize))
        self.cachedPage = Array(cached.prefix(pageSize))
        self.cached = cached
        self.liveExcludingCached = liveExcludingCached
        self.liveExcludingCachedTotal = liveExcludingCachedTotal
        switch preferred {
        case .cached: preferredDocuments = Set(cached)
        case .live: preferredDocuments = Set(live.prefix(cached.count))
        }
    }

    /// Loads what one page of `pageSize` needs for every query: the live ranking (its first
    /// `cachedSize` too, to know its best documents), the cached ranking's first `cachedSize`,
    /// and the live ranking with those excluded. Queries without matches are left out.
    public static func load(
        queries: [String], source: some RankingSource, cachedSize: Int, pageSize: Int, preferred: PreferredRanking
    ) async throws -> [QueryRankings] {
        var loaded: [QueryRankings] = []
        for query in queries {
            let cached = try await source.cached(query: query, size: cachedSize)
            let live = try await source.live(query: query, excluding: [], from: 0, size: max(pageSize, cachedSize))
            let excluding = try await source.live(query: query, excluding: cached, from: 0, size: pageSize)
            guard !live.ids.isEmpty, !cached.isEmpty else { continue }
            loaded.append(QueryRankings(
                query: query, live: live.ids, cached: cached, liveExcludingCached: excluding.ids,
                liveExcludingCachedTotal: excluding.total, pageSize: pageSize, preferred: preferred))
        }
        return loaded
    }
}
