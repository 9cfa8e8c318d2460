import BraidContracts
import BraidCore

/// A live search backend: the ranking A of a page, computed per request.
///
/// Every backend (embedded SQLite FTS5, Elasticsearch/OpenSearch, an HTTP ranking service)
/// answers the same question, so the gateway and the workers never know which one runs.
/// Implementations must be safe to call from many tasks at once and must only throw
/// ``SearchSourceError`` (or `CancellationError` when the calling task is cancelled).
public protocol SearchSource: Sendable {
    /// Hits of `request.query` ranked by `request.profile`, skipping `request.excluding` (and,
    /// when `request.ids` is set, every document not among those ids), positions
    /// `from..<from+size`, and the number of such matches.
    func search(_ request: SearchRequest) async throws -> SearchResult

    /// Where each of `ids` that matches `query` stands in its ``RankingProfile/relevance``
    /// ranking, with the state of the data that was read; nil when the source cannot say
    /// (the default), and callers then exclude documents with ``SearchRequest/excluding``.
    func relevancePositions(of ids: [String], query: String) async throws -> RankPositions?

    /// Releases connections; the source must not be used afterwards.
    func shutdown() async throws
}

extension SearchSource {
    public func relevancePositions(of ids: [String], query: String) async throws -> RankPositions? { nil }

    public func shutdown() async throws {}
}

/// One live query.
public struct SearchRequest: Sendable, Hashable {
    /// What the user typed; sources normalise it with ``QueryNormalizer`` themselves.
    public var query: String
    /// Ids that must not appear in the hits nor count towards the total (ranking B's documents).
    public var excluding: [String]
    public var from: Int
    public var size: Int
    public var profile: RankingProfile
    /// False: the caller ignores `total`, and a source may skip counting (the embedded one
    /// does; `total` is then 0). A request of size 0 asks for the total only.
    public var needsTotal: Bool
    /// Only these documents (nil: all): the hits are those of them that exist and match the
    /// query now, ranked as usual. How a walk shows a page again with its documents' current
    /// fields, leaving out those deleted (or no longer matching) since. A source that cannot
    /// restrict may ignore it: callers keep only the hits among `ids`.
    public var ids: [String]?
    /// False: the total may count the excluded ids too, when that is cheaper for the source
    /// (the embedded one then skips testing every match against them); the result says which
    /// it did (``SearchResult/totalIncludesExcluded``). For a caller that knows how many of the
    /// excluded ids are matches, as a gateway does of a snapshot ranked in the same match generation.
    public var countsExcluded: Bool

    public init(
        query: String, excluding: [String] = [], from: Int = 0, size: Int = 10, profile: RankingProfile = .relevance, needsTotal: Bool = true,
        ids: [String]? = nil, countsExcluded: Bool = true
    ) {
        self.ids = ids
        self.countsExcluded = countsExcluded
        self.query = query
        self.excluding = excluding
        self.from = from
        self.size = size
        self.profile = profile
        self.needsTotal = needsTotal
    }
}

/// One ranked document of a live result.
public struct SearchHit: Sendable, Hashable, Codable {
    public var id: String
    /// Higher is better within one result; comparable only inside one profile.
    public var score: Double
    /// Display fields: `title`, `author`, `category`, `published_at`, `popularity`, …
    public var fields: [String: JSONValue]

    public init(id: String, score: Double, fields: [String: JSONValue] = [:]) {
        self.id = id
        self.score = score
        self.fields = fields
    }

    /// The hit as a document of a stored ranking snapshot.
    public var document: RankingSnapshot.Document {
        RankingSnapshot.Document(id: id, score: score, fields: fields)
    }
}

/// A page of hits plus the total the interleaving planner needs (T, excluding B's ids).
public struct SearchResult: Sendable, Hashable {
    public var hits: [SearchHit]
    public var total: Int
    /// Names the state of the source's data the whole result was read from, for a source
    /// that can promise: equal generations, equal matches for every query under every profile
    /// (only the order differs). Nil when the source makes no such promise, or when the hits and
    /// the total were read from different generations.
    public var matchGeneration: String?
    /// The total counts the request's excluded ids that match (asked for with
    /// ``SearchRequest/countsExcluded`` false, and done by the source).
    public var totalIncludesExcluded: Bool
    /// `total` is a lower bound: more documents match than were counted. A source that says so
    /// counts at least ``SearchRequest/from`` + ``SearchRequest/size`` + ``minimumLowerBoundMargin``
    /// matches first, so a page (and a walk's end) planned with it is the page planned with the
    /// exact total; only the total a response shows is then "at least".
    public var totalIsLowerBound: Bool

    /// How far past a request's page a lower-bound total must reach (see ``totalIsLowerBound``):
    /// more than the documents a page can place from the cached ranking before A runs out.
    public static let minimumLowerBoundMargin = 1_000

    public init(
        hits: [SearchHit], total: Int, matchGeneration: String? = nil, totalIncludesExcluded: Bool = false, totalIsLowerBound: Bool = false
    ) {
        self.hits = hits
        self.total = total
        self.matchGeneration = matchGeneration
        self.totalIncludesExcluded = totalIncludesExcluded
        self.totalIsLowerBound = totalIsLowerBound
    }

    public static let empty = SearchResult(hits: [], total: 0)

    /// The hits as documents of a stored ranking snapshot, in order.
    public var documents: [RankingSnapshot.Document] { hits.map(\.document) }
}
