import AsyncHTTPClient
import BraidCore
import Foundation
import NIOCore

/// Elasticsearch or OpenSearch as the live backend: `POST {base}/{index}/_search`.
public struct ElasticsearchSource: SearchSource {
    public let baseURL: String
    public let index: String
    public let query: ElasticsearchQuery
    private let headers: [(String, String)]
    private let transport: JSONHTTPTransport

    /// - Parameters:
    ///   - baseURL: e.g. `https://search.internal:9200`.
    ///   - credentials: sent with every query; nil for a cluster without security.
    ///   - timeout: deadline of one query, connection included.
    public init(
        baseURL: String, index: String, query: ElasticsearchQuery = ElasticsearchQuery(),
        credentials: ElasticsearchCredentials? = nil, timeout: TimeAmount = .milliseconds(800), client: HTTPClient = .shared
    ) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.index = index
        self.query = query
        self.headers = credentials.map { [("Authorization", $0.authorization)] } ?? []
        self.transport = JSONHTTPTransport(client: client, timeout: timeout)
    }

    public var searchURL: String { "\(baseURL)/\(index)/_search" }

    public func search(_ request: SearchRequest) async throws -> SearchResult {
        try request.validate()
        var normalized = request
        normalized.query = QueryNormalizer.normalize(request.query)
        // Nothing to match: the SQLite source answers the same way, without a round trip.
        guard !normalized.query.isEmpty else { return .empty }
        let body = try JSONEncoder().encode(query.body(for: normalized))
        return try ElasticsearchResponse.parse(try await transport.post(searchURL, body: body, headers: headers))
    }
}
