import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Turns every answer other than 2xx and 304 into a thrown ``BraidClientError`` carrying the
/// gateway's code, message and `Retry-After`, so the operations built on the generated client
/// need no per-status branches: the spec gives every error the same body.
struct ResponseErrorMiddleware: ClientMiddleware {
    /// Error bodies are small (`{"error": …}`); a larger one is cut, not buffered whole.
    static let maxErrorBody = 16 * 1024

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let (response, responseBody) = try await next(request, body, baseURL)
        let status = response.status.code
        if (200..<300).contains(status) || status == 304 { return (response, responseBody) }
        var bytes: [UInt8] = []
        if let responseBody {
            for try await chunk in responseBody {
                bytes += chunk.prefix(Self.maxErrorBody - bytes.count)
                if bytes.count >= Self.maxErrorBody { break }
            }
        }
        throw Self.error(status: status, body: bytes, retryAfter: response.headerFields[.retryAfter])
    }

    /// The error of a non-success answer: the gateway's `{"error": {"code", "message"}}`, or
    /// the status alone when the body is something else (a proxy's page, say).
    static func error(status: Int, body: [UInt8], retryAfter: String?) -> BraidClientError {
        let wait = retryAfter.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.flatMap { $0 >= 0 ? Duration.seconds($0) : nil }
        if let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
            let error = object["error"] as? [String: Any], let code = error["code"] as? String
        {
            return BraidClientError(status: status, code: code, message: error["message"] as? String ?? "", retryAfter: wait)
        }
        let text = String(decoding: body.prefix(200), as: UTF8.self)
        return BraidClientError(status: status, code: "http_\(status)", message: text.isEmpty ? "status \(status)" : text, retryAfter: wait)
    }
}
