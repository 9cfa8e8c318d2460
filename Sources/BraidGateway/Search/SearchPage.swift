import BraidCore

/// The body of `GET /v1/search` (`SearchPage` in `Schemas/openapi.yaml`).
public struct SearchPage: Sendable, Encodable, Equatable {
    public struct Item: Sendable, Encodable, Equatable {
        public enum Source: String, Sendable, Encodable {
            case live
            case cached
        }

        public var id: String
        /// Global, 0-based position in the interleaved list.
        public var position: Int
        public var team: Team
        public var source: Source
        public var score: Double
        /// Display fields of the document, flattened into the item.
        public var fields: [String: JSONValue]
        /// Multileave pages: the team as a number (0 the live ranking, 1… the cached rankings
        /// in the arm's order); `team` is then A for 0 and B for any other.
        public var teamIndex: Int?

        public init(id: String, position: Int, team: Team, source: Source, score: Double, fields: [String: JSONValue], teamIndex: Int? = nil) {
            self.teamIndex = teamIndex
            self.id = id
            self.position = position
            self.team = team
            self.source = source
            self.score = score
            self.fields = fields
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: FieldKey.self)
            // Fields first, so a document field named like a reserved key cannot replace it.
            for (name, value) in fields where !Self.reserved.contains(name) {
                try container.encode(value, forKey: FieldKey(name))
            }
            try container.encode(id, forKey: FieldKey("id"))
            try container.encode(position, forKey: FieldKey("position"))
            try container.encode(team, forKey: FieldKey("team"))
            try container.encode(source, forKey: FieldKey("source"))
            try container.encode(score, forKey: FieldKey("score"))
            if let teamIndex { try container.encode(teamIndex, forKey: FieldKey("team_index")) }
        }

        static let reserved: Set<String> = ["id", "position", "team", "source", "score"]
    }

    public struct Interleaving: Sendable, Encodable, Equatable {
        /// Nil when the page is live-only.
        public var ranking: String?
        /// Snapshot version of B; nil when the page is live-only.
        public var snapshot: Int64?
        public var start: Int
        public var pattern: String
        public var mode: String
        public var maxDocs: Int?
        /// The experiment arm of the session.
        public var arm: String
        /// Multileave pages: the cached rankings (teams 1…) and their snapshot versions.
        public var multileave: [String]? = nil
        public var snapshots: [Int64?]? = nil

        enum CodingKeys: String, CodingKey {
            case ranking, snapshot, start, pattern, mode, arm, multileave, snapshots
            case maxDocs = "max_docs"
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(ranking, forKey: .ranking)
            try container.encode(snapshot, forKey: .snapshot)
            try container.encode(start, forKey: .start)
            try container.encode(pattern, forKey: .pattern)
            try container.encode(mode, forKey: .mode)
            try container.encode(maxDocs, forKey: .maxDocs)
            try container.encode(arm, forKey: .arm)
            if let multileave { try container.encode(multileave, forKey: .multileave) }
            if let snapshots { try container.encode(snapshots, forKey: .snapshots) }
        }
    }

    public var query: String
    /// 1-based page number (offset ÷ per_page + 1).
    public var page: Int
    public var perPage: Int
    public var items: [Item]
    /// Nil on the last page.
    public var nextCursor: String?
    /// Length of the whole interleaved list, when the live total is known.
    public var total: Int?
    /// `total` is at least the list's length, not exactly it: the live source stopped counting
    /// its matches (``SearchResult/totalIsLowerBound``). Pages and walks are planned alike.
    public var totalIsLowerBound: Bool
    public var interleaving: Interleaving
    /// True when Redis could not be reached and the page is live-only.
    public var degraded: Bool
    /// How the page was planned against the walk (``WalkState/Mode/name``): `exact` (from the
    /// walk's record: nothing the walk showed, nothing skipped), `offset` (by position: `page=k`
    /// pages, or walk records off), `lost` or `capped` (the walk's record is gone or full: by
    /// position from here on).
    public var walk: String
    /// Team-draft pages: the signed id that impression and click events refer to.
    public var impressionID: String?

    enum CodingKeys: String, CodingKey {
        case query, page, items, total, interleaving, degraded, walk
        case perPage = "per_page"
        case totalIsLowerBound = "total_is_lower_bound"
        case nextCursor = "next_cursor"
        case impressionID = "impression_id"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(query, forKey: .query)
        try container.encode(page, forKey: .page)
        try container.encode(perPage, forKey: .perPage)
        try container.encode(items, forKey: .items)
        // Explicit nulls: the contract says the key is present and null on the last page.
        try container.encode(nextCursor, forKey: .nextCursor)
        try container.encode(total, forKey: .total)
        try container.encode(totalIsLowerBound, forKey: .totalIsLowerBound)
        try container.encode(interleaving, forKey: .interleaving)
        try container.encode(degraded, forKey: .degraded)
        try container.encode(walk, forKey: .walk)
        try container.encode(impressionID, forKey: .impressionID)
    }
}

struct FieldKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
