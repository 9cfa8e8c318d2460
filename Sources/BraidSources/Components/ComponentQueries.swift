import BraidCore
import Foundation
import SQLiteNIO

/// The SQL behind each component type, over the corpus tables. Every ordering ends with a
/// unique column, so offsets paginate without overlaps and the same database always gives
/// the same items. Pure: builds text and bound parameters only.
enum ComponentQueries {
    struct Statement {
        var sql: String
        var binds: [SQLiteData]
        /// How rows become items.
        var item: @Sendable (SQLiteRow) -> JSONValue = RecipeRow.item
    }

    /// One row more than asked for tells whether another page exists. Nil: nothing can match
    /// (a tab search with no searchable words).
    static func statement(for request: ComponentRequest) throws -> Statement? {
        let page: [SQLiteData] = [.integer(request.limit + 1), .integer(request.offset)]
        let columns = RecipeRow.columns
        if let query = request.query {
            return try tabSearch(request, query: query)
        }
        switch request.type {
        case .recommendedRecipes:
            let user = try request.required(request.scope.user, "user")
            // Recipes sharing categories and ingredients with the user's recently viewed ones,
            // minus those already viewed; a user with no history gets the most popular recipes.
            return Statement(sql: """
                WITH viewed AS (SELECT recipe_id FROM views WHERE user_id = ?1 ORDER BY viewed_at DESC LIMIT 20),
                     cats AS (SELECT DISTINCT category FROM recipes WHERE id IN (SELECT recipe_id FROM viewed)),
                     ings AS (SELECT DISTINCT ingredient FROM recipe_ingredients WHERE recipe_id IN (SELECT recipe_id FROM viewed)),
                     shared AS (SELECT recipe_id, COUNT(*) AS n FROM recipe_ingredients
                                WHERE ingredient IN (SELECT ingredient FROM ings) GROUP BY recipe_id)
                SELECT \(columns),
                       COALESCE(s.n, 0) + CASE WHEN r.category IN (SELECT category FROM cats) THEN 2 ELSE 0 END AS affinity
                FROM recipes AS r LEFT JOIN shared AS s ON s.recipe_id = r.id
                WHERE r.id NOT IN (SELECT recipe_id FROM views WHERE user_id = ?1)
                ORDER BY affinity DESC, r.popularity DESC, r.id ASC
                LIMIT ?2 OFFSET ?3
                """, binds: [.text(user)] + page)
        case .followedAuthorsNew:
            let user = try request.required(request.scope.user, "user")
            return Statement(sql: """
                SELECT \(columns) FROM recipes AS r
                WHERE r.author_id IN (SELECT author_id FROM follows WHERE user_id = ?1)
                ORDER BY r.published_at DESC, r.id ASC LIMIT ?2 OFFSET ?3
                """, binds: [.text(user)] + page)
        case .popularInCategory:
            let category = try request.required(request.scope.category, "category")
            return Statement(sql: """
                SELECT \(columns) FROM recipes AS r WHERE r.category = ?1
                ORDER BY r.popularity DESC, r.id ASC LIMIT ?2 OFFSET ?3
                """, binds: [.text(category)] + page)
        case .newArrivals:
            return Statement(sql: """
                SELECT \(columns) FROM recipes AS r ORDER BY r.published_at DESC, r.id ASC LIMIT ?1 OFFSET ?2
                """, binds: page)
        case .carousel:
            // Today's picks: the most popular of the 200 newest recipes.
            return Statement(sql: """
                SELECT \(columns) FROM (SELECT * FROM recipes ORDER BY published_at DESC, id ASC LIMIT 200) AS r
                ORDER BY r.popularity DESC, r.id ASC LIMIT ?1 OFFSET ?2
                """, binds: page, item: carouselItem)
        case .profileRecipes:
            let user = try request.required(request.scope.user, "user")
            return Statement(sql: """
                SELECT \(columns) FROM recipes AS r WHERE r.author_id = ?1
                ORDER BY r.published_at DESC, r.id ASC LIMIT ?2 OFFSET ?3
                """, binds: [.text(user)] + page)
        case .profileCooksnaps:
            let user = try request.required(request.scope.user, "user")
            return Statement(sql: """
                SELECT c.id, c.recipe_id, c.created_at, c.comment, r.title AS recipe_title
                FROM cooksnaps AS c LEFT JOIN recipes AS r ON r.id = c.recipe_id
                WHERE c.user_id = ?1 ORDER BY c.created_at DESC, c.id ASC LIMIT ?2 OFFSET ?3
                """, binds: [.text(user)] + page, item: cooksnapItem)
        case .recommendedCreators:
            let user = try request.required(request.scope.user, "user")
            // Authors the user does not follow yet, the most followed first.
            return Statement(sql: """
                WITH creators AS (SELECT author_id, MAX(author) AS name, COUNT(*) AS recipe_count
                                  FROM recipes WHERE author_id <> '' GROUP BY author_id),
                     followers AS (SELECT author_id, COUNT(*) AS n FROM follows GROUP BY author_id)
                SELECT c.author_id AS id, c.name, c.recipe_count, COALESCE(f.n, 0) AS follower_count
                FROM creators AS c LEFT JOIN followers AS f ON f.author_id = c.author_id
                WHERE c.author_id <> ?1 AND c.author_id NOT IN (SELECT author_id FROM follows WHERE user_id = ?1)
                ORDER BY follower_count DESC, c.recipe_count DESC, c.author_id ASC LIMIT ?2 OFFSET ?3
                """, binds: [.text(user)] + page, item: creatorItem)
        case .userStats:
            let user = try request.required(request.scope.user, "user")
            // The week up to the newest activity of the corpus, or up to now if that is earlier
            // (the demo corpus is fixed in time: a week up to today would always be empty).
            return Statement(sql: """
                WITH asof AS (SELECT MIN(?2, COALESCE(MAX(t), ?2)) AS t FROM (
                         SELECT MAX(viewed_at) AS t FROM views UNION ALL SELECT MAX(created_at) FROM cooksnaps)),
                     mine AS (SELECT id FROM recipes WHERE author_id = ?1)
                SELECT ?1 AS user_id, (SELECT t FROM asof) AS as_of,
                       (SELECT COUNT(*) FROM mine) AS recipes,
                       (SELECT COUNT(*) FROM views WHERE recipe_id IN (SELECT id FROM mine)
                          AND viewed_at > (SELECT t FROM asof) - ?3 AND viewed_at <= (SELECT t FROM asof)) AS views,
                       (SELECT COUNT(*) FROM cooksnaps WHERE recipe_id IN (SELECT id FROM mine)
                          AND created_at > (SELECT t FROM asof) - ?3 AND created_at <= (SELECT t FROM asof)) AS cooksnaps
                LIMIT ?4 OFFSET ?5
                """, binds: [.text(user), .integer(Int(request.now.timeIntervalSince1970)), .integer(statsPeriodDays * 86_400)] + page,
                item: userStatsItem)
        case .profileHeader:
            let user = try request.required(request.scope.user, "user")
            // No row for a user the corpus does not know.
            return Statement(sql: """
                SELECT * FROM (
                  SELECT ?1 AS id,
                         COALESCE((SELECT name FROM users WHERE id = ?1), (SELECT author FROM recipes WHERE author_id = ?1 LIMIT 1)) AS name,
                         (SELECT COUNT(*) FROM recipes WHERE author_id = ?1) AS recipe_count,
                         (SELECT COUNT(*) FROM cooksnaps WHERE user_id = ?1) AS cooksnap_count,
                         (SELECT COUNT(*) FROM follows WHERE author_id = ?1) AS follower_count,
                         (SELECT COUNT(*) FROM follows WHERE user_id = ?1) AS following_count)
                WHERE name IS NOT NULL LIMIT ?2 OFFSET ?3
                """, binds: [.text(user)] + page, item: profileHeaderItem)
        case .profileTabs:
            let user = try request.required(request.scope.user, "user")
            return Statement(sql: """
                SELECT id, count FROM (
                  SELECT 0 AS ord, 'profile_recipes' AS id, (SELECT COUNT(*) FROM recipes WHERE author_id = ?1) AS count
                  UNION ALL
                  SELECT 1, 'profile_cooksnaps', (SELECT COUNT(*) FROM cooksnaps WHERE user_id = ?1))
                ORDER BY ord LIMIT ?2 OFFSET ?3
                """, binds: [.text(user)] + page, item: profileTabItem)
        case .banner, .interleavedRecipes:
            throw ComponentProviderError(.badRequest, "\(request.type.rawValue) does not come from the corpus")
        }
    }

    /// Days of activity a `user_stats` card counts.
    static let statsPeriodDays = 7

    /// A profile tab searched: the author's recipes matching `query` (most relevant first),
    /// or their cooksnaps of recipes matching it (newest first). Nil when the query has no
    /// searchable words.
    static func tabSearch(_ request: ComponentRequest, query: String) throws -> Statement? {
        let user = try request.required(request.scope.user, "user")
        guard let match = FTSMatchExpression.build(query) else { return nil }
        let table = match.table.rawValue
        let page: [SQLiteData] = [.integer(request.limit + 1), .integer(request.offset)]
        switch request.type {
        case .profileRecipes:
            return Statement(sql: """
                SELECT \(RecipeRow.columns), -bm25(\(table)) AS score FROM \(table) JOIN recipes AS r ON r.seq = \(table).rowid
                WHERE \(table) MATCH ?1 AND r.author_id = ?2
                ORDER BY score DESC, r.id ASC LIMIT ?3 OFFSET ?4
                """, binds: [.text(match.expression), .text(user)] + page)
        case .profileCooksnaps:
            return Statement(sql: """
                SELECT c.id, c.recipe_id, c.created_at, c.comment, r.title AS recipe_title
                FROM cooksnaps AS c JOIN recipes AS r ON r.id = c.recipe_id
                WHERE c.user_id = ?2 AND r.seq IN (SELECT rowid FROM \(table) WHERE \(table) MATCH ?1)
                ORDER BY c.created_at DESC, c.id ASC LIMIT ?3 OFFSET ?4
                """, binds: [.text(match.expression), .text(user)] + page, item: cooksnapItem)
        default:
            throw ComponentProviderError(.badRequest, "\(request.type.rawValue) does not accept a search query")
        }
    }

    @Sendable static func carouselItem(_ row: SQLiteRow) -> JSONValue {
        guard case .object(var object) = RecipeRow.item(row) else { return RecipeRow.item(row) }
        let title = object["title"]?.stringValue ?? ""
        let author = object["author"]?.stringValue ?? ""
        object["overlay_title"] = .string(author.isEmpty ? title : "\(title) · \(author)")
        return .object(object)
    }

    @Sendable static func creatorItem(_ row: SQLiteRow) -> JSONValue {
        let id = row.column("id")?.string ?? ""
        return .object([
            "id": .string(id),
            "name": .string(row.column("name")?.string ?? ""),
            "recipe_count": .number(Double(row.column("recipe_count")?.integer ?? 0)),
            "follower_count": .number(Double(row.column("follower_count")?.integer ?? 0)),
            "avatar_url": .string(avatarURL(id)),
        ])
    }

    @Sendable static func userStatsItem(_ row: SQLiteRow) -> JSONValue {
        let user = row.column("user_id")?.string ?? ""
        return .object([
            "id": .string("stats-\(user)"),
            "user_id": .string(user),
            "period_days": .number(Double(statsPeriodDays)),
            "as_of": .string(RecipeRow.timestamp(row.column("as_of")?.integer ?? 0)),
            "recipes": .number(Double(row.column("recipes")?.integer ?? 0)),
            "views": .number(Double(row.column("views")?.integer ?? 0)),
            "cooksnaps": .number(Double(row.column("cooksnaps")?.integer ?? 0)),
        ])
    }

    @Sendable static func profileHeaderItem(_ row: SQLiteRow) -> JSONValue {
        let id = row.column("id")?.string ?? ""
        var object: [String: JSONValue] = ["id": .string(id), "name": .string(row.column("name")?.string ?? ""), "avatar_url": .string(avatarURL(id))]
        for count in ["recipe_count", "cooksnap_count", "follower_count", "following_count"] {
            object[count] = .number(Double(row.column(count)?.integer ?? 0))
        }
        return .object(object)
    }

    @Sendable static func profileTabItem(_ row: SQLiteRow) -> JSONValue {
        .object(["id": .string(row.column("id")?.string ?? ""), "count": .number(Double(row.column("count")?.integer ?? 0))])
    }

    /// Placeholder avatars, like recipe images: clients render the path as they like.
    static func avatarURL(_ user: String) -> String { "/images/users/\(user).jpg" }

    @Sendable static func cooksnapItem(_ row: SQLiteRow) -> JSONValue {
        let id = row.column("id")?.string ?? ""
        return .object([
            "id": .string(id),
            "recipe_id": .string(row.column("recipe_id")?.string ?? ""),
            "recipe_title": .string(row.column("recipe_title")?.string ?? ""),
            "comment": .string(row.column("comment")?.string ?? ""),
            "created_at": .string(RecipeRow.timestamp(row.column("created_at")?.integer ?? 0)),
            "image_url": .string("/images/cooksnaps/\(id).jpg"),
        ])
    }
}
