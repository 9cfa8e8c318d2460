import Foundation
import BraidCore

/// Turns user text into a safe SQLite FTS5 MATCH expression.
///
/// User syntax is never passed through: the normalised query is cut into runs of letters and
/// digits (so `"`, `*`, `(`, `-`, `:` and friends can only separate tokens), every token becomes
/// a quoted phrase, and FTS5 keywords such as `OR`, `NEAR` or `NOT` end up as plain words
/// inside quotes. Tokens are AND-ed.
///
/// Two FTS5 tables index the corpus (see ``CorpusSchema``):
/// - `recipes_fts`, `unicode61` tokenizer: words separated by spaces or punctuation. A token of
///   at least ``minPrefixLength`` characters is a prefix query (`"curr"*`), which suits
///   search-as-you-type; the table's prefix index answers a three-character prefix with one
///   doclist instead of merging every word that starts with it. A shorter token matches whole
///   words only (`"ox"`, not `oxtail`): a one- or two-letter prefix matches most of the corpus,
///   and ranking that many matches costs many times a common word.
/// - `recipes_trigram`, `trigram` tokenizer: substring matching, used when the query contains
///   Chinese/Japanese/Korean text, where words are not separated by spaces (so `カレー` also
///   finds `ビーフカレー`). Trigrams need at least three characters, so shorter tokens are left
///   out there; a CJK query made only of short tokens falls back to the words table, where its
///   CJK tokens stay prefixes (`親子` finds the space-less `親子丼`, which is one token there).
public struct FTSMatchExpression: Sendable, Hashable {
    public enum Table: String, Sendable, Hashable {
        case words = "recipes_fts"
        case trigram = "recipes_trigram"
    }

    public var table: Table
    public var expression: String

    public init(table: Table, expression: String) {
        self.table = table
        self.expression = expression
    }

    /// At most this many tokens are used; the rest of a pasted essay is ignored.
    public static let maxTokens = 16
    /// Longer tokens are cut; no recipe word is this long.
    public static let maxTokenLength = 64

    /// Nil when nothing searchable is left: the result is then empty, not an error.
    public static func build(_ query: String) -> FTSMatchExpression? {
        let tokens = tokens(of: QueryNormalizer.normalize(query))
        guard !tokens.isEmpty else { return nil }
        if tokens.contains(where: containsCJK) {
            let long = tokens.filter { $0.count >= 3 }
            if !long.isEmpty {
                return FTSMatchExpression(table: .trigram, expression: long.map(quoted).joined(separator: " "))
            }
        }
        return FTSMatchExpression(table: .words, expression: tokens.map(wordsTerm).joined(separator: " "))
    }

    /// More tokens than this make a query broad (``isBroad(_:)``).
    public static let maxNarrowTokens = 4

    /// A query of a shape whose cost the corpus, not the query, decides: a one- or two-letter
    /// token (a whole word, which can be as common as "a" or "of"), or more than
    /// ``maxNarrowTokens`` tokens (each one more list to read). The gateway runs few of them at
    /// once (`gateway.broad_search_concurrency`), so a flood of them cannot take the CPU a
    /// normal query needs. CJK tokens are words or trigram runs of their own and do not count as short.
    public static func isBroad(_ query: String) -> Bool {
        let tokens = tokens(of: QueryNormalizer.normalize(query))
        return tokens.count > maxNarrowTokens || tokens.contains { $0.count < minPrefixLength && !containsCJK($0) }
    }

    /// Tokens shorter than this match whole words only (see the type's documentation).
    public static let minPrefixLength = 3

    /// One token's term in the words table: a prefix query when the token is long enough or
    /// CJK (whose words are whole runs of text there), else the whole word.
    static func wordsTerm(_ token: String) -> String {
        token.count >= minPrefixLength || containsCJK(token) ? quoted(token) + "*" : quoted(token)
    }

    /// Runs of letters, digits and combining marks, in order, de-duplicated.
    static func tokens(of text: String) -> [String] {
        var tokens: [String] = []
        var current = ""
        func flush() {
            if !current.isEmpty, !tokens.contains(current), tokens.count < maxTokens {
                tokens.append(String(current.prefix(maxTokenLength)))
            }
            current = ""
        }
        for character in text {
            if character.isLetter || character.isNumber {
                current.append(character)
            } else {
                flush()
            }
            if tokens.count == maxTokens { break }
        }
        flush()
        return tokens
    }

    /// A double-quoted FTS5 string; tokens hold no quotes, but doubling keeps this safe anyway.
    static func quoted(_ token: String) -> String {
        "\"" + token.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func containsCJK(_ token: String) -> Bool {
        token.unicodeScalars.contains { scalar in
            switch scalar.value {
            case 0x3040...0x30FF, 0x31F0...0x31FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
                0xF900...0xFAFF, 0xAC00...0xD7AF, 0x20000...0x2FA1F:
                return true
            default:
                return false
            }
        }
    }
}
