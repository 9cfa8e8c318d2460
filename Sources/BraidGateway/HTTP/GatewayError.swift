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

    public init(_ status: HTTPResponse.Status, code: String, _ message: String) {
        self.status = status
        self.code = code
        self.message = message
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
}

extension GatewayError: HTTPResponseError {
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        JSONResponse.error(status: status, code: code, message: message)
    }
}

/// Builds JSON responses without a round trip through a request context's encoder, so
/// error paths cannot themselves fail.
enum JSONResponse {
    static func error(status: HTTPResponse.Status, code: String, message: String) -> Response {
        let body: [String: [String: String]] = ["error": ["code": code, "message": message]]
        let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data()
        return Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
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
