import BraidCore
import Foundation
import SQLiteNIO

/// Display fields of a `recipes` row, shared by search hits and component items.
enum RecipeRow {
    static func fields(_ row: SQLiteRow) -> [String: JSONValue] {
        let id = row.column("id")?.string ?? ""
        let ingredients = (row.column("ingredients")?.string ?? "")
            .split(separator: ",").map { JSONValue.string(String($0.trimmingSpaces)) }
        return [
            "title": .string(row.column("title")?.string ?? ""),
            "author": .string(row.column("author")?.string ?? ""),
            "author_id": .string(row.column("author_id")?.string ?? ""),
            "category": .string(row.column("category")?.string ?? ""),
            "ingredients": .array(ingredients),
            "published_at": .string(timestamp(row.column("published_at")?.integer ?? 0)),
            "popularity": .number(Double(row.column("popularity")?.integer ?? 0)),
            "image_url": .string(imageURL(recipeID: id)),
        ]
    }

    /// A component item: the id plus the display fields.
    static func item(_ row: SQLiteRow) -> JSONValue {
        var object = fields(row)
        object["id"] = .string(row.column("id")?.string ?? "")
        return .object(object)
    }

    /// Placeholder images: the demo corpus has none, clients render the path as they like.
    static func imageURL(recipeID: String) -> String { "/images/recipes/\(recipeID).jpg" }

    static func timestamp(_ seconds: Int) -> String {
        Date(timeIntervalSince1970: TimeInterval(seconds)).ISO8601Format()
    }

    static let columns = "r.id, r.title, r.ingredients, r.category, r.author_id, r.author, r.published_at, r.popularity"
}

extension Substring {
    /// Without leading and trailing whitespace. Foundation's `trimmingCharacters(in:)` bridges
    /// through NSString, which shows in a search page's CPU time here.
    fileprivate var trimmingSpaces: Substring {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return self[first...last]
    }
}
