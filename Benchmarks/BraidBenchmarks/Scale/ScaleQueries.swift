/// The fixed query set of the scale group: head, torso and tail words of the generator's
/// Zipf-like vocabulary (``CorpusVocabulary`` in BraidSources), two-word queries, and the
/// shapes that are hard for a search engine whatever its corpus: one- and two-letter words
/// (whole words: `s` of "Grandma's", `of`), a word in more than half the corpus (`onion`),
/// a query of stop words (which the generator's vocabulary does not contain: it matches
/// nothing, and must still be answered as fast), a long query of common words (more than
/// ``FTSMatchExpression/maxNarrowTokens`` tokens: a broad query), CJK text (the trigram index;
/// and a two-character run, which falls back to the words table) and Cyrillic text. Shares at
/// 1,000,000 recipes are printed by each run (`FIGURE scale.<size>.matches.<query>`).
struct ScaleQuery: Sendable, Hashable {
    /// The name in FIGURE lines.
    var name: String
    var text: String
    /// head, torso, tail, short (one or two letters), half (in half the corpus), stopwords,
    /// long (many common words), cjk, cyrillic.
    var kind: String
    /// Walked to page 50 as well: it has at least 1,000 matches at every size.
    var deep = false
    /// It may match nothing at some size: its page 1 may have no items.
    var mayBeEmpty = false
}

enum ScaleQueries {
    /// The common full word that `scale.worst_query_p50.vs_head_word` divides by, and whose
    /// live-only page 1 is also timed ``BenchmarkSettings/scaleHeadSamples`` times for its p99.
    static let headWord = "curry"

    static let all: [ScaleQuery] = [
        ScaleQuery(name: "curry", text: "curry", kind: "head", deep: true),
        ScaleQuery(name: "chicken", text: "chicken", kind: "head", deep: true),
        ScaleQuery(name: "curry_rice", text: "curry rice", kind: "head", deep: true),
        ScaleQuery(name: "miso_soup", text: "miso soup", kind: "head"),
        ScaleQuery(name: "lasagna", text: "lasagna", kind: "torso"),
        ScaleQuery(name: "tahini", text: "tahini", kind: "torso"),
        ScaleQuery(name: "haggis", text: "haggis", kind: "tail"),
        ScaleQuery(name: "mashua", text: "mashua", kind: "tail"),
        ScaleQuery(name: "s", text: "s", kind: "short", mayBeEmpty: true),
        ScaleQuery(name: "of", text: "of", kind: "short", mayBeEmpty: true),
        ScaleQuery(name: "onion", text: "onion", kind: "half", deep: true),
        ScaleQuery(name: "stop_words", text: "what is the best of a curry with the rice", kind: "stopwords", mayBeEmpty: true),
        ScaleQuery(name: "common_words", text: "onion salt rice egg garlic pepper main", kind: "long", mayBeEmpty: true),
        ScaleQuery(name: "kare", text: "カレー", kind: "cjk"),
        ScaleQuery(name: "kantan", text: "簡単", kind: "cjk"),
        ScaleQuery(name: "karri", text: "карри", kind: "cyrillic", mayBeEmpty: true),
    ]

    /// Page `page` of 20 of a query, or the page a cursor names.
    static func path(_ query: ScaleQuery, cursor: String? = nil) -> String {
        var path = "/v1/search?q=\(GatewayFixture.quotePlus(query.text))&per_page=20"
        if let cursor { path += "&cursor=\(GatewayFixture.quotePlus(cursor))" }
        return path
    }

    /// `20k`, `200k`, `1m`: a corpus size in figure names.
    static func label(_ documents: Int) -> String {
        if documents >= 1_000_000, documents % 1_000_000 == 0 { return "\(documents / 1_000_000)m" }
        if documents >= 1_000, documents % 1_000 == 0 { return "\(documents / 1_000)k" }
        return "\(documents)"
    }
}
