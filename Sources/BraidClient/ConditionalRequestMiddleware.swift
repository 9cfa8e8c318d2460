import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Sends `If-None-Match` as the ETag's exact bytes. The generated client encodes header
/// parameters like URI components, which turns the quotes every ETag has into `%22`, so the
/// gateway would never match; ``BraidClient/component(_:of:user:cursor:query:etag:)`` hands the
/// ETag here through ``etag`` instead.
struct ConditionalRequestMiddleware: ClientMiddleware {
    /// The ETag to revalidate with, for the request made in this task.
    @TaskLocal static var etag: String?

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard let etag = Self.etag else { return try await next(request, body, baseURL) }
        var request = request
        request.headerFields[.ifNoneMatch] = etag
        return try await next(request, body, baseURL)
    }
}
