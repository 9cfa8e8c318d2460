/// The fixed query set of the scale group: head, torso and tail words of the generator's
/// Zipf-like vocabulary (``CorpusVocabulary`` in BraidSources), two-word queries, one- and
/// two-letter tokens (whole words, which the generator's vocabulary does not contain; as
/// prefixes they would match most of the corpus), a CJK query (the trigram index) and the
/// demo's queries. Shares at 1,000,000 recipes are printed by each run
/// (`FIGURE scale.<size>.matches.<query>`).
struct ScaleQuery: Sendable, Hashable {
    /// The name in FIGURE lines.
    var name: String
    var text: String
    /// head, torso, tail, short (one or two letters), cjk.
    var kind: String
    /// Walked to page 50 as well: it has at least 1,000 matches at every size.
    var deep = false

    /// A one- or two-letter word: it may match nothing (whole words only).
    var mayBeEmpty: Bool { kind == "short" }
}

enum ScaleQueries {
    /// The common full word that `scale.worst_query_p50.vs_head_word` divides by.
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
        ScaleQuery(name: "c", text: "c", kind: "short"),
        ScaleQuery(name: "ch", text: "ch", kind: "short"),
        ScaleQuery(name: "kare", text: "カレー", kind: "cjk"),
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
