import BraidCore
import Foundation

/// Parses someone's own documents for `braid seed --import`: one JSON object per line with at
/// least `id` and `title`. Pure; the lines that cannot be used are reported with their
/// 1-based line number and reason, never dropped silently. Blank lines are ignored.
///
/// Optional fields: `ingredients` (array of strings, or one comma-separated string),
/// `category`, `author`, `author_id`, `published_at` (RFC 3339 text or seconds since 1970),
/// `popularity` (a non-negative number).
public enum CorpusImport {
    public struct BadLine: Sendable, Hashable, CustomStringConvertible {
        public var line: Int
        public var reason: String
        public var description: String { "line \(line): \(reason)" }
    }

    public struct Parsed: Sendable, Hashable {
        public var recipes: [CorpusRecipe]
        public var badLines: [BadLine]
    }

    public static func parse(_ data: Data) -> Parsed {
        var recipes: [CorpusRecipe] = []
        var bad: [BadLine] = []
        var seen: [String: Int] = [:]
        for (offset, line) in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let number = offset + 1
            let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if text.isEmpty { continue }
            switch parse(line: text) {
            case .success(let recipe):
                if let first = seen[recipe.id] {
                    bad.append(BadLine(line: number, reason: "duplicate id \(recipe.id) (first on line \(first))"))
                } else {
                    seen[recipe.id] = number
                    recipes.append(recipe)
                }
            case .failure(let reason):
                bad.append(BadLine(line: number, reason: reason.text))
            }
        }
        return Parsed(recipes: recipes, badLines: bad)
    }

    struct Reason: Error { var text: String }

    static func parse(line: String) -> Result<CorpusRecipe, Reason> {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(line.utf8)) else {
            return .failure(Reason(text: "not valid JSON"))
        }
        guard case .object(let object) = value else { return .failure(Reason(text: "not a JSON object")) }
        guard let id = object["id"]?.stringValue, !id.isEmpty, id.count <= 128 else {
            return .failure(Reason(text: "missing or invalid \"id\" (a string of 1 to 128 characters)"))
        }
        guard let title = object["title"]?.stringValue, !title.trimmingCharacters(in: .whitespaces).isEmpty else {
            return .failure(Reason(text: "missing or empty \"title\""))
        }
        var recipe = CorpusRecipe(id: id, title: title)
        switch object["ingredients"] {
        case .none, .null?: break
        case .string(let list)?:
            recipe.ingredients = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        case .array(let items)?:
            let names = items.compactMap(\.stringValue)
            guard names.count == items.count else { return .failure(Reason(text: "\"ingredients\" must hold strings")) }
            recipe.ingredients = names
        default:
            return .failure(Reason(text: "\"ingredients\" must be an array of strings or a string"))
        }
        for (key, path) in [("category", \CorpusRecipe.category), ("author", \.author), ("author_id", \.authorID)] {
            switch object[key] {
            case .none, .null?: continue
            case .string(let text)?: recipe[keyPath: path] = text
            default: return .failure(Reason(text: "\"\(key)\" must be a string"))
            }
        }
        switch object["published_at"] {
        case .none, .null?: break
        case .number(let seconds)?: recipe.publishedAt = Int64(seconds)
        case .string(let text)?:
            guard let date = try? Date(text, strategy: .iso8601) else {
                return .failure(Reason(text: "\"published_at\" is not an RFC 3339 time: \(text)"))
            }
            recipe.publishedAt = Int64(date.timeIntervalSince1970)
        default:
            return .failure(Reason(text: "\"published_at\" must be RFC 3339 text or seconds since 1970"))
        }
        switch object["popularity"] {
        case .none, .null?: break
        case .number(let count)? where count >= 0 && count < 1e15: recipe.popularity = Int(count)
        default: return .failure(Reason(text: "\"popularity\" must be a non-negative number"))
        }
        return .success(recipe)
    }
}
