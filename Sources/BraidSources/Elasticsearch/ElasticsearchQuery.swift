import BraidCore

/// The `_search` body of one live query. Pure, so the body is tested as data.
///
/// `bool.must` holds one `multi_match` over the text fields (all words required, like the
/// SQLite source); `bool.must_not` an `ids` query of the excluded documents (ranking B's, and
/// on later pages of a walk the documents it has shown), so `hits.total` is T excluding them
/// (`track_total_hits: true` makes it exact past 10,000); `bool.filter` an `ids` query when the
/// request names its documents (a walk serving a page again). Profiles:
/// `relevance` sorts by score; `popularity_boosted` wraps the query in a `function_score`
/// adding `log1p(popularity)`; `newest` sorts by `published_at`. The document field named by
/// `tieBreaker` orders equal scores, so pages never overlap or skip.
public struct ElasticsearchQuery: Sendable, Hashable {
    public var fields: [String]
    public var popularityField: String
    public var publishedField: String
    public var tieBreaker: String

    public init(
        fields: [String] = ["title^3", "ingredients"], popularityField: String = "popularity",
        publishedField: String = "published_at", tieBreaker: String = "id"
    ) {
        self.fields = fields
        self.popularityField = popularityField
        self.publishedField = publishedField
        self.tieBreaker = tieBreaker
    }

    /// The body for `request`, whose `query` is already normalised and not empty.
    public func body(for request: SearchRequest) -> JSONValue {
        var bool: [String: JSONValue] = [
            "must": .array([.object(["multi_match": .object([
                "query": .string(request.query),
                "fields": .array(fields.map(JSONValue.string)),
                "operator": "and",
            ])])])
        ]
        if !request.excluding.isEmpty {
            bool["must_not"] = .array([.object(["ids": .object(["values": .array(request.excluding.map(JSONValue.string))])])])
        }
        if let ids = request.ids {
            bool["filter"] = .array([.object(["ids": .object(["values": .array(ids.map(JSONValue.string))])])])
        }
        let matches: JSONValue = .object(["bool": .object(bool)])
        let tie: JSONValue = .object([tieBreaker: .object(["order": "asc", "unmapped_type": "keyword"])])
        let query: JSONValue
        let sort: [JSONValue]
        switch request.profile {
        case .relevance:
            query = matches
            sort = ["_score", tie]
        case .popularityBoosted:
            query = .object(["function_score": .object([
                "query": matches,
                "field_value_factor": .object(["field": .string(popularityField), "modifier": "log1p", "missing": 0]),
                "boost_mode": "sum",
            ])])
            sort = ["_score", tie]
        case .newest:
            query = matches
            sort = [.object([publishedField: .object(["order": "desc", "unmapped_type": "date"])]), tie]
        }
        return .object([
            "from": .number(Double(request.from)),
            "size": .number(Double(request.size)),
            "track_total_hits": true,
            "query": query,
            "sort": .array(sort),
        ])
    }
}

