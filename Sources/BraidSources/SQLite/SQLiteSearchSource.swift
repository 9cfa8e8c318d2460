import BraidCore
import Logging
import SQLiteNIO

/// The embedded default: SQLite FTS5 over the corpus file `braid seed` writes.
///
/// `relevance` is bm25 with per-column weights, `popularity_boosted` adds the logarithm of a
/// recipe's popularity to it, `newest` orders matches by publication date. Safe for
/// concurrent use: queries run on NIO's thread pool over a small pool of read-only connections.
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
        /// Read connections; more let more queries run at once.
        public var connections: Int

        public init(weights: Weights = Weights(), popularityWeight: Double = 1.0, connections: Int = 4) {
            self.weights = weights
            self.popularityWeight = popularityWeight
            self.connections = connections
        }
    }

    public let path: String
    public let options: Options
    private let pool: SQLiteConnectionPool

    /// Opens nothing yet: connections are opened on the first query, so a process can start
    /// before the corpus exists (queries are ``SearchSourceError/Code/unavailable`` until then).
    public init(path: String, options: Options = Options(), logger: Logger = Logger(label: "braid.search.sqlite")) {
        self.path = path
        self.options = options
        self.pool = SQLiteConnectionPool(path: path, size: options.connections, logger: logger)
    }

    public func search(_ request: SearchRequest) async throws -> SearchResult {
        try request.validate()
        guard let match = FTSMatchExpression.build(request.query) else { return .empty }
        let statements = SQLiteSearchStatements(match: match, weights: options.weights, popularityWeight: options.popularityWeight)
        let page = statements.page(request)
        let count = statements.count(excluding: request.excluding)
        do {
            // Only what the request needs: a count-only request reads no rows, a page whose
            // caller ignores the total counts nothing. One statement runs in this task; only
            // both at once take child tasks (each a hop between threads on the way back).
            switch (request.size > 0, request.needsTotal) {
            case (true, true):
                async let rows = pool.withConnection { try await $0.query(page.sql, page.binds) }
                async let totals = pool.withConnection { try await $0.query(count.sql, count.binds) }
                return SearchResult(hits: Self.hits(try await rows), total: Self.total(try await totals))
            case (true, false):
                return SearchResult(hits: Self.hits(try await pool.withConnection { try await $0.query(page.sql, page.binds) }), total: 0)
            case (false, true):
                return SearchResult(hits: [], total: Self.total(try await pool.withConnection { try await $0.query(count.sql, count.binds) }))
            case (false, false):
                return .empty
            }
        } catch let error as SearchSourceError {
            throw error
        } catch let error as SQLiteError {
            // Queries are built from sanitised text, so SQL errors mean a missing or broken corpus.
            throw SearchSourceError(.unavailable, "corpus query failed at \(path): \(error)")
        }
    }

    private static func hits(_ rows: [SQLiteRow]) -> [SearchHit] {
        rows.map { row in
            SearchHit(id: row.column("id")?.string ?? "", score: row.column("score")?.double ?? 0, fields: RecipeRow.fields(row))
        }
    }

    private static func total(_ rows: [SQLiteRow]) -> Int {
        rows.first?.column("total")?.integer ?? 0
    }

    public func shutdown() async throws {
        try await pool.shutdown()
    }
}
