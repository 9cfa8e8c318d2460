import Foundation

/// An OTLP/HTTP trace collector for tests: a ``TinyHTTPServer`` on a free loopback port that
/// accepts `POST /v1/traces` (protobuf `ExportTraceServiceRequest`) and decodes the spans, so a
/// test can check what a `braid` process really exported.
public final class OTLPReceiver: Sendable {
    public let server: TinyHTTPServer

    /// What `tracing.otlp_endpoint` is set to.
    public var endpoint: String { server.baseURL + "/v1/traces" }

    public static func start() async throws -> OTLPReceiver {
        // An empty ExportTraceServiceResponse, as JSON (the content type TinyHTTPServer sends).
        OTLPReceiver(server: try await TinyHTTPServer.start { _ in .init(status: 200, body: Data("{}".utf8)) })
    }

    private init(server: TinyHTTPServer) {
        self.server = server
    }

    public func stop() async throws {
        try await server.stop()
    }

    /// Every span received so far, in arrival order. Throws on a request that is not an
    /// OTLP/HTTP protobuf export or does not decode.
    public func spans() throws -> [ReceivedSpan] {
        try server.requests.flatMap { request -> [ReceivedSpan] in
            guard request.method == "POST", request.uri == "/v1/traces" else {
                throw OTLPDecodingError(description: "unexpected \(request.method) \(request.uri)")
            }
            guard request.headers["content-type"] == "application/x-protobuf" else {
                throw OTLPDecodingError(description: "content type \(request.headers["content-type"] ?? "none"), not application/x-protobuf")
            }
            return try OTLPTraceDecoder.spans(in: [UInt8](request.body))
        }
    }
}

/// One exported span: the fields a test needs to rebuild a trace.
public struct ReceivedSpan: Sendable, Hashable, CustomStringConvertible {
    /// Lower-case hex, as in `traceparent`.
    public var traceID: String
    public var spanID: String
    /// Empty for a root span.
    public var parentSpanID: String
    public var name: String
    /// OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer.
    public var kind: Int
    /// The resource's `service.name`.
    public var service: String
    /// String, integer and boolean attributes, as text.
    public var attributes: [String: String]

    public var description: String {
        "\(service) \(name) trace=\(traceID) span=\(spanID) parent=\(parentSpanID.isEmpty ? "-" : parentSpanID)"
    }
}

public struct OTLPDecodingError: Error, CustomStringConvertible {
    public let description: String
}

/// Reads the few fields of `opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest`
/// that tests look at, straight from the protobuf wire format (field numbers from the OTLP
/// .proto files); everything else is skipped.
public enum OTLPTraceDecoder {
    public static func spans(in body: [UInt8]) throws -> [ReceivedSpan] {
        var spans: [ReceivedSpan] = []
        // ExportTraceServiceRequest.resource_spans = 1
        for resourceSpans in try fields(body, number: 1) {
            var service = ""
            // ResourceSpans.resource = 1 → Resource.attributes = 1
            for resource in try fields(resourceSpans, number: 1) {
                service = try attributes(resource, number: 1)["service.name"] ?? service
            }
            // ResourceSpans.scope_spans = 2 → ScopeSpans.spans = 2
            for scopeSpans in try fields(resourceSpans, number: 2) {
                for span in try fields(scopeSpans, number: 2) {
                    spans.append(ReceivedSpan(
                        traceID: hex(try fields(span, number: 1).first ?? []),
                        spanID: hex(try fields(span, number: 2).first ?? []),
                        parentSpanID: hex(try fields(span, number: 4).first ?? []),
                        name: String(decoding: try fields(span, number: 5).first ?? [], as: UTF8.self),
                        kind: Int(try varints(span, number: 6).first ?? 0),
                        service: service,
                        attributes: try attributes(span, number: 9)))
                }
            }
        }
        return spans
    }

    /// KeyValue { key = 1; AnyValue value = 2 }, AnyValue { string = 1; bool = 2; int = 3 }.
    static func attributes(_ message: [UInt8], number: Int) throws -> [String: String] {
        var out: [String: String] = [:]
        for keyValue in try fields(message, number: number) {
            let key = String(decoding: try fields(keyValue, number: 1).first ?? [], as: UTF8.self)
            guard let value = try fields(keyValue, number: 2).first else { continue }
            if let text = try fields(value, number: 1).first {
                out[key] = String(decoding: text, as: UTF8.self)
            } else if let flag = try varints(value, number: 2).first {
                out[key] = flag != 0 ? "true" : "false"
            } else if let integer = try varints(value, number: 3).first {
                out[key] = String(Int64(bitPattern: integer))
            }
        }
        return out
    }

    /// The length-delimited fields `number` of a message.
    static func fields(_ message: [UInt8], number: Int) throws -> [[UInt8]] {
        try walk(message).compactMap { $0.number == number ? $0.bytes : nil }
    }

    /// The varint fields `number` of a message.
    static func varints(_ message: [UInt8], number: Int) throws -> [UInt64] {
        try walk(message).compactMap { $0.number == number ? $0.varint : nil }
    }

    private struct Field {
        var number: Int
        var bytes: [UInt8]?
        var varint: UInt64?
    }

    private static func walk(_ message: [UInt8]) throws -> [Field] {
        var fields: [Field] = []
        var index = 0
        func varint() throws -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                guard index < message.count, shift < 64 else { throw OTLPDecodingError(description: "truncated varint") }
                let byte = message[index]
                index += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
        }
        while index < message.count {
            let tag = try varint()
            let number = Int(tag >> 3)
            switch tag & 7 {
            case 0:
                fields.append(Field(number: number, varint: try varint()))
            case 1, 5:
                let size = tag & 7 == 1 ? 8 : 4
                guard index + size <= message.count else { throw OTLPDecodingError(description: "truncated fixed field") }
                index += size
            case 2:
                let length = Int(try varint())
                guard length >= 0, index + length <= message.count else { throw OTLPDecodingError(description: "truncated field \(number)") }
                fields.append(Field(number: number, bytes: Array(message[index..<index + length])))
                index += length
            default:
                throw OTLPDecodingError(description: "unsupported wire type \(tag & 7) of field \(number)")
            }
        }
        return fields
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
