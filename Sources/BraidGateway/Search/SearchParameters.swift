import BraidContracts
import BraidCore

/// The validated query parameters of `GET /v1/search`.
///
/// Parsing is strict and names the offending parameter: a client sending `per_page=abc`
/// learns why instead of silently getting 20 results.
public struct SearchParameters: Sendable, Equatable {
    public var query: String
    /// The page size: the cursor's once there is one (``RequestCursors``).
    public var perPage: Int
    /// The `per_page` the request named, if it named one: with a cursor it must agree with it.
    public var perPageParameter: Int?
    /// 1-based; meaningful only without a cursor.
    public var page: Int
    public var cursor: String?
    public var ranking: String?
    public var session: String?
    /// The verified user of the request (not a query parameter): impression ids carry its key.
    public var user: String?
    /// The feed component the page is for (not a query parameter): its impression id names it,
    /// so the experiment's credit is also broken down by component.
    public var component: FeedComponentName?

    public static let pageRange = 1...10_000
    public static let maxQueryLength = 512

    public init(
        query: String, perPage: Int, page: Int = 1, cursor: String? = nil, ranking: String? = nil, session: String? = nil, user: String? = nil
    ) {
        self.user = user
        self.query = query
        self.perPage = perPage
        self.page = page
        self.cursor = cursor
        self.ranking = ranking
        self.session = session
    }

    /// Parses raw query parameters (the first value of each name).
    public static func parse(_ raw: [String: String], defaultPerPage: Int) throws(GatewayError) -> SearchParameters {
        guard let query = raw["q"], query.contains(where: { !$0.isWhitespace }) else {
            throw .badRequest("q is required and must not be blank", code: "invalid_parameter")
        }
        guard query.unicodeScalars.count <= maxQueryLength else {
            throw .badRequest("q must be at most \(maxQueryLength) characters", code: "invalid_parameter")
        }
        let perPageParameter = try integer(raw["per_page"], name: "per_page", range: PageSize.range)
        let page = try integer(raw["page"], name: "page", range: pageRange) ?? 1
        let cursor = try text(raw["cursor"], name: "cursor", maxLength: CursorCodec.maxTextLength)
        let ranking = try text(raw["ranking"], name: "ranking", maxLength: 64)
        if let ranking, !Names.isValid(ranking) {
            throw .badRequest("ranking must be \(Names.rule)", code: "invalid_parameter")
        }
        let session = try text(raw["session"], name: "session", maxLength: 128)
        var parameters = SearchParameters(
            query: query, perPage: perPageParameter ?? defaultPerPage, page: page, cursor: cursor, ranking: ranking, session: session)
        parameters.perPageParameter = perPageParameter
        return parameters
    }

    static func integer(_ raw: String?, name: String, range: ClosedRange<Int>) throws(GatewayError) -> Int? {
        guard let raw else { return nil }
        guard let value = Int(raw), range.contains(value) else {
            throw .badRequest("\(name) must be an integer from \(range.lowerBound) to \(range.upperBound)", code: "invalid_parameter")
        }
        return value
    }

    static func text(_ raw: String?, name: String, maxLength: Int) throws(GatewayError) -> String? {
        guard let raw else { return nil }
        guard !raw.isEmpty, raw.unicodeScalars.count <= maxLength else {
            throw .badRequest("\(name) must be 1 to \(maxLength) characters", code: "invalid_parameter")
        }
        return raw
    }

}
