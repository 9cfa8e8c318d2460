import Foundation

/// One recipe document of the corpus.
public struct CorpusRecipe: Sendable, Hashable {
    public var id: String
    public var title: String
    public var ingredients: [String]
    public var category: String
    public var authorID: String
    public var author: String
    /// Seconds since 1970.
    public var publishedAt: Int64
    public var popularity: Int

    public init(
        id: String, title: String, ingredients: [String] = [], category: String = "", authorID: String = "",
        author: String = "", publishedAt: Int64 = 0, popularity: Int = 0
    ) {
        self.id = id
        self.title = title
        self.ingredients = ingredients
        self.category = category
        self.authorID = authorID
        self.author = author
        self.publishedAt = publishedAt
        self.popularity = popularity
    }

    /// Stored so the popularity boost needs no math functions in SQL (this SQLite has none).
    public var popularityLog: Double { log1p(Double(max(popularity, 0))) }
}

/// One user with what the feed components are computed from.
public struct CorpusUser: Sendable, Hashable {
    public struct View: Sendable, Hashable {
        public var recipeID: String
        public var viewedAt: Int64
    }

    public struct Cooksnap: Sendable, Hashable {
        public var id: String
        public var recipeID: String
        public var createdAt: Int64
        public var comment: String
    }

    public var id: String
    public var name: String
    /// Ids of the users (authors) this user follows.
    public var follows: [String]
    public var views: [View]
    public var cooksnaps: [Cooksnap]
}

/// Fixed-width ids (`r000123`, `u0042`) so ids sort like their numbers.
enum CorpusIDs {
    static func recipe(_ index: Int) -> String { "r" + padded(index, width: 6) }
    static func user(_ index: Int) -> String { "u" + padded(index, width: 5) }

    static func padded(_ value: Int, width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
