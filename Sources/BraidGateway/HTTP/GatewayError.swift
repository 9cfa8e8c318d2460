import Foundation
import Hummingbird

/// An error the gateway reports to clients as `{"error": {"code", "message"}}`.
///
/// Every failure a client can cause or observe is one of these; anything else reaching the
/// error middleware is a bug and is logged as such.
public struct GatewayError: Error, Sendable, Equatable, CustomStringConvertible {
    public var status: HTTPResponse.Status
    /// Stable, machine-readable: clients branch on it, people read the message.
    public var code: String
    public var message: String
    /// Sent with the error (`WWW-Authenticate` of a 401).
    public var headers: HTTPFields

    public init(_ status: HTTPResponse.Status, code: String, _ message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    public var description: String { "\(status.code) \(code): \(message)" }

    /// A dependency failed (5xx), as opposed to a request the client got wrong.
    public var isUnavailable: Bool { status.code >= 500 }

    public static func badRequest(_ message: String, code: String = "bad_request") -> GatewayError {
        GatewayError(.badRequest, code: code, message)
    }

    public static func notFound(_ message: String) -> GatewayError {
        GatewayError(.notFound, code: "not_found", message)
    }

    public static func unavailable(_ message: String, code: String = "unavailable") -> GatewayError {
        GatewayError(.serviceUnavailable, code: code, message)
    }

    /// Turned away to protect other requests (a line full or waited in too long); 503 with
    /// `Retry-After: 1`, a second being long enough for a line of live queries to move.
    public static func busy(_ message: String) -> GatewayError {
        GatewayError(.serviceUnavailable, code: "busy", message, headers: [.retryAfter: "1"])
    }

    /// A personalised route without a credential (or with one the proxy did not vouch for).
    public static func unauthenticated(_ message: String) -> GatewayError {
        GatewayError(.unauthorized, code: "unauthenticated", message, headers: [.wwwAuthenticate: "Bearer"])
    }

    /// What a client may read in the body. A dependency's failure (5xx) is described by what
    /// failed, never where or how: addresses, upstream replies and error texts stay in the
    /// log (``JSONErrorMiddleware``), whatever message the code that threw it wrote.
    public var publicMessage: String {
        guard isUnavailable else { return message }
        switch code {
        case "live_timeout": return "the live search backend did not answer in time; try again"
        case "live_unavailable": return "the live search backend is unavailable; try again later"
        case "redis_unavailable": return "stored results are unavailable; try again later"
        case "events_unavailable": return "the events could not be recorded; send them again later"
        case "component_unavailable": return "the component is unavailable; try again later"
        case "identity_unavailable": return "the identity provider's keys are unavailable; try again later"
        case "busy": return message
        default: return "a service this request needs is unavailable; try again later"
        }
    }
}

extension GatewayError: HTTPResponseError {
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        JSONResponse.error(status: status, code: code, message: publicMessage, headers: headers)
    }
}

/// Builds JSON responses without a round trip through a request context's encoder, so
/// error paths cannot themselves fail.
enum JSONResponse {
    static func error(status: HTTPResponse.Status, code: String, message: String, headers: HTTPFields = [:]) -> Response {
        let body: [String: [String: String]] = ["error": ["code": code, "message": message]]
        let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data()
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// A body already written as JSON bytes.
    static func bytes(_ body: [UInt8], status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    static func encode(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let data = try encoder.encode(value)
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
