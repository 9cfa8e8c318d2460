import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Sends the ``CredentialProvider``'s token as `Authorization: Bearer …`. When the gateway
/// answers 401 with `error="invalid_token"`, it asks the provider for a new token and sends the
/// request once more (request bodies of the generated operations can be sent twice).
struct CredentialMiddleware: ClientMiddleware {
    let provider: any CredentialProvider

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard let token = try await provider.token(refusing: nil) else { return try await next(request, body, baseURL) }
        let answer = try await next(Self.authorized(request, token), body, baseURL)
        guard Self.refusesToken(answer.0), body?.iterationBehavior != .single,
            let renewed = try await provider.token(refusing: token), renewed != token
        else { return answer }
        return try await next(Self.authorized(request, renewed), body, baseURL)
    }

    static func authorized(_ request: HTTPRequest, _ token: String) -> HTTPRequest {
        var request = request
        request.headerFields[.authorization] = "Bearer \(token)"
        return request
    }

    /// RFC 6750: a token that did not verify is `invalid_token`; a missing one is not retried.
    static func refusesToken(_ response: HTTPResponse) -> Bool {
        response.status == .unauthorized && (response.headerFields[.wwwAuthenticate]?.contains("invalid_token") ?? false)
    }
}
