import SQLiteNIO

/// How corpus values become table rows: the one place that knows the column order.
enum CorpusRows {
    static let recipeColumns = [
        "id", "title", "ingredients", "category", "author_id", "author", "published_at", "popularity", "popularity_log",
    ]

    static func recipe(_ recipe: CorpusRecipe) -> [SQLiteData] {
        [
            .text(recipe.id), .text(recipe.title), .text(recipe.ingredients.joined(separator: ", ")),
            .text(recipe.category), .text(recipe.authorID), .text(recipe.author), SQLiteData(recipe.publishedAt),
            .integer(recipe.popularity), .float(recipe.popularityLog),
        ]
    }

    static func ingredients(_ recipe: CorpusRecipe) -> [[SQLiteData]] {
        recipe.ingredients.map { [.text(recipe.id), .text($0)] }
    }

    /// Rows of `users`, `follows`, `views` and `cooksnaps` for a batch of users.
    static func userTables(_ users: [CorpusUser]) -> [(table: String, columns: [String], rows: [[SQLiteData]])] {
        [
            ("users", ["id", "name"], users.map { [.text($0.id), .text($0.name)] }),
            ("follows", ["user_id", "author_id"], users.flatMap { user in user.follows.map { [.text(user.id), .text($0)] } }),
            ("views", ["user_id", "recipe_id", "viewed_at"], users.flatMap { user in
                user.views.map { [.text(user.id), .text($0.recipeID), SQLiteData($0.viewedAt)] }
            }),
            ("cooksnaps", ["id", "user_id", "recipe_id", "created_at", "comment"], users.flatMap { user in
                user.cooksnaps.map { [.text($0.id), .text(user.id), .text($0.recipeID), SQLiteData($0.createdAt), .text($0.comment)] }
            }),
        ]
    }
}
