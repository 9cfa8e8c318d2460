import SQLiteNIO

/// The SQL of one live query, built as text plus bound parameters. Pure, so the statements can
/// be tested without a database; user text only ever travels as a bound parameter (the MATCH
/// expression of ``FTSMatchExpression`` and the excluded ids).
struct SQLiteSearchStatements {
    var match: FTSMatchExpression
    var weights: SQLiteSearchSource.Weights
    var popularityWeight: Double

    struct Statement {
        var sql: String
        var binds: [SQLiteData]
    }

    /// The page `from..<from+size` in profile order; ties broken by id so pages never overlap.
    func page(_ request: SearchRequest) -> Statement {
        let table = match.table.rawValue
        let exclusion = Self.exclusion(request.excluding)
        let sql = """
            SELECT r.id, r.title, r.ingredients, r.category, r.author_id, r.author, r.published_at, r.popularity,
                   \(score(request.profile)) AS score
            FROM \(table) JOIN recipes AS r ON r.seq = \(table).rowid
            WHERE \(table) MATCH ?\(exclusion.sql)
            ORDER BY score DESC, r.id ASC
            LIMIT ? OFFSET ?
            """
        return Statement(
            sql: sql, binds: [.text(match.expression)] + exclusion.binds + [.integer(request.size), .integer(request.from)])
    }

    /// Matches minus the excluded ids: T of the interleaving planner.
    func count(excluding: [String]) -> Statement {
        let table = match.table.rawValue
        guard !excluding.isEmpty else {
            return Statement(sql: "SELECT COUNT(*) AS total FROM \(table) WHERE \(table) MATCH ?", binds: [.text(match.expression)])
        }
        let exclusion = Self.exclusion(excluding)
        return Statement(
            sql: """
                SELECT COUNT(*) AS total FROM \(table) JOIN recipes AS r ON r.seq = \(table).rowid
                WHERE \(table) MATCH ?\(exclusion.sql)
                """,
            binds: [.text(match.expression)] + exclusion.binds)
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

    private static func exclusion(_ ids: [String]) -> (sql: String, binds: [SQLiteData]) {
        guard !ids.isEmpty else { return ("", []) }
        let unique = Array(Set(ids)).sorted()
        return (" AND r.id NOT IN (" + Array(repeating: "?", count: unique.count).joined(separator: ",") + ")", unique.map { .text($0) })
    }
}
