import BraidCore
import Foundation

/// How a recipe becomes Xapian terms and a query becomes clauses: the matching rules of
/// ``FTSMatchExpression``, so the `xapian` source matches what the `sqlite` source matches.
///
/// Words are the runs of letters and digits of the normalised text (``QueryNormalizer``), with
/// Latin, Greek and Cyrillic diacritics removed (as FTS5's `remove_diacritics 2`); a query token
/// of three or more characters, or a CJK one, is a prefix, a shorter one a whole word. Words
/// that contain CJK text are also indexed as trigrams at consecutive positions, and a query with
/// a CJK token of three or more characters matches its long tokens there: a CJK token as a
/// substring of a CJK word (what FTS5's `trigram` table finds), a Latin one still as a word prefix
/// (FTS5 would take it as a substring of any text). Pure: tested without an index.
enum XapianTerms {
    /// Prefix of a document's boolean id term (Xapian's convention for unique ids).
    static let idPrefix = "Q"
    /// Prefix of trigram terms; word terms are lowercase, so never start with it.
    static let trigramPrefix = "T"

    /// One term of a document: how much it weighs (wdf) and, for trigrams, where it is.
    struct Posting: Hashable {
        var term: String
        var wdf: UInt32
        var position: UInt32
    }

    /// One clause of a query: the clauses of a query are AND-ed.
    enum Clause: Hashable {
        case word(String)
        case prefix(String)
        /// Terms at consecutive positions.
        case phrase([String])
    }

    static func idTerm(_ id: String) -> String { idPrefix + id }

    /// Fields and their weights (title, ingredients, category): what FTS5's bm25 column weights
    /// are to the `sqlite` source, a term's within-document frequency is here.
    static func postings(title: String, ingredients: String, category: String, weights: SQLiteSearchSource.Weights) -> [Posting] {
        var postings: [Posting] = []
        var position: UInt32 = 1
        for (text, weight) in [(title, weights.title), (ingredients, weights.ingredients), (category, weights.category)] {
            let wdf = UInt32(max(1, weight.rounded()))
            for word in words(text) {
                postings.append(Posting(term: word, wdf: wdf, position: 0))
                guard FTSMatchExpression.containsCJK(word) else { continue }
                for trigram in trigrams(word) {
                    postings.append(Posting(term: trigramPrefix + trigram, wdf: wdf, position: position))
                    position += 1
                }
                // A gap: no phrase runs from one word into the next.
                position += 1
            }
        }
        return postings
    }

    /// The clauses of `query`; nil when nothing searchable is left (no hits, not an error).
    static func clauses(_ query: String) -> [Clause]? {
        let tokens = FTSMatchExpression.tokens(of: QueryNormalizer.normalize(query)).map(fold)
        guard !tokens.isEmpty else { return nil }
        if tokens.contains(where: FTSMatchExpression.containsCJK) {
            let long = tokens.filter { $0.count >= 3 }
            if !long.isEmpty {
                return long.map { token in
                    FTSMatchExpression.containsCJK(token) ? .phrase(trigrams(token).map { trigramPrefix + $0 }) : .prefix(token)
                }
            }
        }
        return tokens.map { token in
            token.count >= FTSMatchExpression.minPrefixLength || FTSMatchExpression.containsCJK(token) ? .prefix(token) : .word(token)
        }
    }

    /// The words of a field, in order, repeats kept (each counts).
    static func words(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        for character in QueryNormalizer.normalize(text) {
            if character.isLetter || character.isNumber {
                current.append(character)
            } else if !current.isEmpty {
                words.append(fold(current))
                current = ""
            }
        }
        if !current.isEmpty { words.append(fold(current)) }
        return words
    }

    /// Without combining diacritical marks (U+0300–U+036F: `é` is `e`, `й` is `и`), cut to
    /// ``FTSMatchExpression/maxTokenLength`` characters. CJK marks such as the voiced sound mark
    /// are kept: `ガ` stays `ガ`.
    static func fold(_ token: String) -> String {
        let cut = token.count > FTSMatchExpression.maxTokenLength ? String(token.prefix(FTSMatchExpression.maxTokenLength)) : token
        guard cut.unicodeScalars.contains(where: { $0.value >= 0xC0 }) else { return cut }
        var scalars = String.UnicodeScalarView()
        for scalar in cut.decomposedStringWithCanonicalMapping.unicodeScalars where !(0x300...0x36F).contains(scalar.value) {
            scalars.append(scalar)
        }
        return String(scalars).precomposedStringWithCanonicalMapping
    }

    /// Every run of three characters, in order; a shorter word is its own one term.
    static func trigrams(_ word: String) -> [String] {
        let characters = Array(word)
        guard characters.count > 3 else { return [word] }
        return (0...(characters.count - 3)).map { String(characters[$0..<($0 + 3)]) }
    }
}
