import BraidCore
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

    /// One row more than asked for tells whether another page exists.
    static func statement(for request: ComponentRequest) throws -> Statement {
        let page: [SQLiteData] = [.integer(request.limit + 1), .integer(request.offset)]
        let columns = RecipeRow.columns
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
                """, binds: page)
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
        }
    }

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
