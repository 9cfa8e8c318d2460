import BraidCore
import Logging
import SQLiteNIO

/// SQLite FTS5 over the corpus file `braid seed` writes (`search.source: sqlite`).
///
/// `relevance` is bm25 with per-column weights, `popularity_boosted` adds the logarithm of a
/// recipe's popularity to it, `newest` orders matches by publication date. Safe for
/// concurrent use: queries run on a thread pool of their own over a small pool of read-only
/// connections, one statement per connection at a time, and a cancelled task's statement is
/// interrupted (``SearchSource`` callers cancel a live query at its deadline).
public struct SQLiteSearchSource: SearchSource {
    /// bm25 column weights: a word in the title counts more than one in the ingredients.
    public struct Weights: Sendable, Hashable {
        public var title: Double
        public var ingredients: Double
        public var category: Double

        public init(title: Double = 10, ingredients: Double = 3, category: Double = 1) {
            self.title = title
            self.ingredients = ingredients
            self.category = category
        }
    }

    public struct Options: Sendable, Hashable {
        public var weights: Weights
        /// Score points per natural-log unit of popularity in `popularity_boosted`.
        public var popularityWeight: Double
        /// Read connections, each with a thread of its own: at most this many statements run at
        /// once, and further ones wait for a connection (`search.sqlite.connections`).
        public var connections: Int
        /// Page cache of each connection, in MiB (`search.sqlite.page_cache_mib`).
        public var pageCacheMiB: Int
        /// The component provider's default too; `search.sqlite.page_cache_mib` defaults to the same.
        public static let defaultPageCacheMiB = 8

        public init(
            weights: Weights = Weights(), popularityWeight: Double = 1.0, connections: Int = 4,
            pageCacheMiB: Int = Options.defaultPageCacheMiB
        ) {
            self.weights = weights
            self.popularityWeight = popularityWeight
            self.connections = connections
            self.pageCacheMiB = pageCacheMiB
        }
    }

    public let path: String
    public let options: Options
    private let pool: SQLiteConnectionPool

    /// Prefixed to the corpus's generation in ``SearchResult/matchGeneration``: the version of
    /// how a query becomes a match set (``FTSMatchExpression``). A build that changes that must
    /// change this, so that snapshots ranked under the old rules are not taken for the new.
    static let matchRules = "fts5-2"

    /// Opens nothing yet: connections are opened on the first query, so a process can start
    /// before the corpus exists (queries are ``SearchSourceError/Code/unavailable`` until then).
    public init(path: String, options: Options = Options(), logger: Logger = Logger(label: "braid.search.sqlite")) {
        self.path = path
        self.options = options
        self.pool = SQLiteConnectionPool(
            path: path, size: options.connections, pageCacheMiB: options.pageCacheMiB, name: "search", logger: logger)
    }

    /// The result carries the corpus's generation (``CorpusSchema/newGeneration``) when every
    /// statement it ran read the same one; every profile matches the same rows, so that is
    /// the promise ``SearchResult/matchGeneration`` asks for.
    public func search(_ request: SearchRequest) async throws -> SearchResult {
        try request.validate()
        guard let match = FTSMatchExpression.build(request.query) else { return .empty }
        do {
            let statements = try await statements(for: match)
            let page = statements.page(request)
            let countsAll = !request.countsExcluded && !request.excluding.isEmpty
            let count = statements.count(excluding: countsAll ? [] : request.excluding, only: request.ids)
            // Only what the request needs: a count-only request reads no rows, a page whose
            // caller ignores the total counts nothing. One statement runs in this task; only
            // both at once take child tasks (each a hop between threads on the way back).
            switch (request.size > 0, request.needsTotal) {
            case (true, true):
                async let rows = pool.withConnection { try await $0.query(page.sql, page.binds) }
                async let totals = pool.withConnection { try await $0.query(count.sql, count.binds) }
                return Self.result(rows: try await rows, totals: try await totals, countsAll: countsAll)
            case (true, false):
                return Self.result(rows: try await pool.withConnection { try await $0.query(page.sql, page.binds) }, totals: nil)
            case (false, true):
                return Self.result(rows: nil, totals: try await pool.withConnection { try await $0.query(count.sql, count.binds) }, countsAll: countsAll)
            case (false, false):
                return .empty
            }
        } catch let error as SearchSourceError {
            throw error
        } catch let error as SQLiteError {
            // Interrupted at the deadline (the pool stops a cancelled task's statement).
            if Task.isCancelled { throw CancellationError() }
            // Queries are built from sanitised text, so SQL errors mean a missing or broken corpus.
            throw SearchSourceError(.unavailable, "corpus query failed at \(path): \(error)")
        }
    }

    /// Read in one statement, so the positions and their generation belong together. None of
    /// `ids` matching reads no generation: nil then, and such positions are never used.
    public func relevancePositions(of ids: [String], query: String) async throws -> RankPositions? {
        guard let match = FTSMatchExpression.build(query) else { return RankPositions(positions: [:], matchGeneration: nil) }
        guard !ids.isEmpty else { return RankPositions(positions: [:], matchGeneration: nil) }
        guard ids.count <= SearchRequest.maxExcluded else { return nil }
        do {
            let statements = try await statements(for: match)
            let statement = statements.positions(of: ids)
            let rows = try await pool.withConnection { try await $0.query(statement.sql, statement.binds) }
            var positions: [String: Int] = [:]
            for row in rows {
                guard let id = row.column("id")?.string, let position = row.column("position")?.integer else { continue }
                positions[id] = position
            }
            return RankPositions(positions: positions, matchGeneration: Self.matchGeneration(read: rows.prefix(1).map { $0.column("generation")?.string }))
        } catch let error as SQLiteError {
            if Task.isCancelled { throw CancellationError() }
            throw SearchSourceError(.unavailable, "corpus query failed at \(path): \(error)")
        }
    }

    /// The statements of `match` under this source's options, reading the corpus generation
    /// when the corpus has one.
    private func statements(for match: FTSMatchExpression) async throws -> SQLiteSearchStatements {
        var statements = SQLiteSearchStatements(match: match, weights: options.weights, popularityWeight: options.popularityWeight)
        statements.readsGeneration = try await pool.tables().contains("corpus_generation")
        return statements
    }

    /// Rows of the page statement and the count statement's one row, either absent when not run;
    /// `countsAll`: the count statement left the excluded ids in.
    private static func result(rows: [SQLiteRow]?, totals: [SQLiteRow]?, countsAll: Bool = false) -> SearchResult {
        let hits = rows.map { rows in
            rows.map { row in
                SearchHit(id: row.column("id")?.string ?? "", score: row.column("score")?.double ?? 0, fields: RecipeRow.fields(row))
            }
        } ?? []
        // A statement that returned no rows read no generation; an empty page has no hits to vouch for.
        let generations = [rows?.first, totals?.first].compactMap { $0 }.map { $0.column("generation")?.string }
        return SearchResult(
            hits: hits, total: totals?.first?.column("total")?.integer ?? 0, matchGeneration: matchGeneration(read: generations),
            totalIncludesExcluded: countsAll && totals != nil)
    }

    /// What a result vouches for, given the generation each statement that returned a row read
    /// (`nil` for a corpus without one): that generation under ``matchRules`` if all read the same,
    /// else nothing. A page and its count run on two connections, so a write that lands between
    /// them leaves each reading a different corpus, and neither may speak for the other.
    static func matchGeneration(read generations: [String?]) -> String? {
        guard let first = generations.first, let first, generations.allSatisfy({ $0 == first }) else { return nil }
        return "\(matchRules):\(first)"
    }

    public func shutdown() async throws {
        try await pool.shutdown()
    }
}
