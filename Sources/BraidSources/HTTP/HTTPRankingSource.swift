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

    public func search(_ request: SearchRequest) async throws -> SearchResult {
        try request.validate()
        let body = try RankingServiceContract.encode(request)
        return try RankingServiceContract.decode(try await transport.post(url, body: body))
    }
}
