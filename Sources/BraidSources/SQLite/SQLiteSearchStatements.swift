import BraidCore
import SQLiteNIO

/// The SQL of one live query, built as text plus bound parameters. Pure, so the statements can
/// be tested without a database; user text only ever travels as a bound parameter (the MATCH
/// expression of ``FTSMatchExpression`` and the excluded ids).
struct SQLiteSearchStatements {
    var match: FTSMatchExpression
    var weights: SQLiteSearchSource.Weights
    var popularityWeight: Double
    /// The corpus has a `corpus_generation` table: each statement also reads the generation,
    /// in the same read as its rows, as the column `generation`.
    var readsGeneration = false

    struct Statement {
        var sql: String
        var binds: [SQLiteData]
    }

    /// The page `from..<from+size` in profile order; ties broken by corpus row (`seq`, the
    /// order `braid seed` inserts recipes in, which is id order) so pages never overlap.
    ///
    /// Matches are ranked first and only the rows the page needs are joined to `recipes`:
    /// relevance needs nothing but the index, and reading every match's row to sort it would
    /// be a large part of the query for a common word.
    ///
    /// Excluded ids are removed after the sort, from its first `from + size + excluded`
    /// rows: at most that many excluded documents precede the page, so those rows hold it.
    /// Testing every match against the excluded set instead (`rowid NOT IN …` in the scan)
    /// costs a lookup per match, more than the page itself for a common word. They are
    /// removed by row (`seq`, one lookup per excluded id in the id index) before the join, so
    /// only the page's rows are read from `recipes`: joining all `from + size + excluded` rows
    /// first would make an interleaved page's query dearer than a live-only one's.
    func page(_ request: SearchRequest) -> Statement {
        let table = match.table.rawValue
        let join = request.profile == .relevance ? "" : " JOIN recipes AS r ON r.seq = \(table).rowid"
        let only = Self.restriction(request.ids, table: table)
        let ranked = """
            SELECT \(table).rowid AS seq, \(score(request.profile)) AS score
            FROM \(table)\(join)
            WHERE \(table) MATCH ?\(only.sql)
            ORDER BY score DESC, seq ASC
            """
        let columns = "r.id, r.title, r.ingredients, r.category, r.author_id, r.author, r.published_at, r.popularity, s.score" + generationColumn
        let excluded = Self.unique(request.excluding)
        guard !excluded.isEmpty else {
            return Statement(
                sql: """
                    SELECT \(columns)
                    FROM (\(ranked)
                    LIMIT ? OFFSET ?) AS s JOIN recipes AS r ON r.seq = s.seq
                    ORDER BY s.score DESC, s.seq ASC
                    """,
                binds: [.text(match.expression)] + only.binds + [.integer(request.size), .integer(request.from)])
        }
        let placeholders = Array(repeating: "?", count: excluded.count).joined(separator: ",")
        let sql = """
            SELECT \(columns)
            FROM (SELECT seq, score FROM (\(ranked)
                LIMIT ?)
                WHERE seq NOT IN (SELECT seq FROM recipes WHERE id IN (\(placeholders)))
                ORDER BY score DESC, seq ASC
                LIMIT ? OFFSET ?) AS s JOIN recipes AS r ON r.seq = s.seq
            ORDER BY s.score DESC, s.seq ASC
            """
        return Statement(
            sql: sql,
            binds: [.text(match.expression)] + only.binds + [.integer(request.from + request.size + excluded.count)]
                + excluded.map { .text($0) } + [.integer(request.size), .integer(request.from)])
    }

    /// Where each of `ids` that matches stands in the relevance ranking, 0-based, ties broken
    /// by corpus row as ``page(_:)`` breaks them: every match is ranked (what a page costs), and
    /// only the rows of `ids` are read from `recipes`.
    func positions(of ids: [String]) -> Statement {
        let table = match.table.rawValue
        let unique = Self.unique(ids)
        let placeholders = Array(repeating: "?", count: unique.count).joined(separator: ",")
        return Statement(
            sql: """
                SELECT r.id AS id, s.position AS position\(generationColumn)
                FROM (SELECT seq, ROW_NUMBER() OVER (ORDER BY score DESC, seq ASC) - 1 AS position
                    FROM (SELECT \(table).rowid AS seq, \(relevance) AS score FROM \(table) WHERE \(table) MATCH ?)) AS s
                JOIN recipes AS r ON r.seq = s.seq
                WHERE s.seq IN (SELECT seq FROM recipes WHERE id IN (\(placeholders)))
                """,
            binds: [.text(match.expression)] + unique.map { .text($0) })
    }

    /// Matches minus the excluded ids: T of the interleaving planner. The index alone
    /// answers it: excluded ids become rowids once, instead of joining every match to
    /// `recipes` to read its id (many times the cost of this).
    func count(excluding: [String], only ids: [String]? = nil) -> Statement {
        let table = match.table.rawValue
        let exclusion = Self.exclusion(excluding, table: table)
        let only = Self.restriction(ids, table: table)
        return Statement(
            sql: "SELECT COUNT(*) AS total\(generationColumn) FROM \(table) WHERE \(table) MATCH ?\(only.sql)\(exclusion.sql)",
            binds: [.text(match.expression)] + only.binds + exclusion.binds)
    }

    /// Uncorrelated, so SQLite reads it once per statement.
    private var generationColumn: String {
        readsGeneration ? ", (SELECT generation FROM corpus_generation) AS generation" : ""
    }

    /// bm25 is lower-is-better; negated so every profile sorts descending.
    func score(_ profile: RankingProfile) -> String {
        switch profile {
        case .relevance: return relevance
        case .popularityBoosted: return "(\(relevance) + \(popularityWeight) * r.popularity_log)"
        case .newest: return "r.published_at"
        }
    }

    private var relevance: String {
        let columnWeights = match.table == .words
            ? [weights.title, weights.ingredients, weights.category]
            : [weights.title, weights.ingredients]
        return "-bm25(\(match.table.rawValue), " + columnWeights.map { String($0) }.joined(separator: ", ") + ")"
    }

    /// ` AND <table>.rowid NOT IN (SELECT seq FROM recipes WHERE id IN (?, …))`, or nothing.
    private static func exclusion(_ ids: [String], table: String) -> (sql: String, binds: [SQLiteData]) {
        let unique = unique(ids)
        guard !unique.isEmpty else { return ("", []) }
        let placeholders = Array(repeating: "?", count: unique.count).joined(separator: ",")
        return (
            " AND \(table).rowid NOT IN (SELECT seq FROM recipes WHERE id IN (\(placeholders)))",
            unique.map { .text($0) }
        )
    }

    /// ` AND <table>.rowid IN (SELECT seq FROM recipes WHERE id IN (?, …))` for a request that
    /// names its documents (``SearchRequest/ids``; none: nothing matches), or nothing.
    private static func restriction(_ ids: [String]?, table: String) -> (sql: String, binds: [SQLiteData]) {
        guard let ids else { return ("", []) }
        let unique = unique(ids)
        guard !unique.isEmpty else { return (" AND 0", []) }
        let placeholders = Array(repeating: "?", count: unique.count).joined(separator: ",")
        return (" AND \(table).rowid IN (SELECT seq FROM recipes WHERE id IN (\(placeholders)))", unique.map { .text($0) })
    }

    /// Each id once, first occurrences in their order (equal requests, equal statements).
    /// Not sorted: sorting a snapshot's ids costs more than the rest of building the SQL.
    static func unique(_ ids: [String]) -> [String] {
        var seen = Set<String>(minimumCapacity: ids.count)
        return ids.filter { seen.insert($0).inserted }
    }
}
