import AsyncHTTPClient
import BraidCore
import NIOCore

/// Any ranking service that speaks ``RankingServiceContract`` over HTTP POST: the escape hatch
/// for teams whose ranking lives in a service of their own.
public struct HTTPRankingSource: SearchSource {
    public let url: String
    private let transport: JSONHTTPTransport

    public init(url: String, timeout: TimeAmount = .milliseconds(800), client: HTTPClient = .shared) {
        self.url = url
        self.transport = JSONHTTPTransport(client: client, timeout: timeout)
    }

    /// A request with ``SearchRequest/ids`` that the service refuses (400 or 422: a version 1
    /// service that checks its input strictly) is sent again without them; the caller keeps
    /// the hits among the ids.
    public func search(_ request: SearchRequest) async throws -> SearchResult {
        try request.validate()
        do {
            return try await post(request)
        } catch let error as SearchSourceError where request.ids != nil && [400, 422].contains(error.status) {
            var plain = request
            plain.ids = nil
            return try await post(plain)
        }
    }

    private func post(_ request: SearchRequest) async throws -> SearchResult {
        let body = try RankingServiceContract.encode(request)
        let headers = [(RankingServiceContract.versionHeader, String(RankingServiceContract.version))]
        return try RankingServiceContract.decode(try await transport.post(url, body: body, headers: headers))
    }
}
