import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Plain HTTP requests to loopback services: readiness checks, and the pages that fault
/// scenarios and benchmarks ask for.
public enum HTTPProbe {
    public struct Response: Sendable {
        public var status: Int
        public var body: Data
        public var headers: [(String, String)]

        /// The body as a JSON object, or nil.
        public var json: [String: Any]? { try? JSONSerialization.jsonObject(with: body) as? [String: Any] }
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// GETs `url` (or POSTs `body` with `method: .POST`); a transport failure throws.
    public static func request(
        _ url: String, method: HTTPMethod = .GET, body: Data? = nil, headers: [(String, String)] = [],
        timeout: Duration = .seconds(10)
    ) async throws -> Response {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            request.body = .bytes(ByteBuffer(bytes: body))
            if !request.headers.contains(name: "Content-Type") { request.headers.add(name: "Content-Type", value: "application/json") }
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .nanoseconds(timeout.nanoseconds))
        var buffer = try await response.body.collect(upTo: 64 << 20)
        let bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
        return Response(status: Int(response.status.code), body: Data(bytes), headers: response.headers.map { ($0.name, $0.value) })
    }

    /// Whether GET `url` answers 200 now.
    public static func isOK(_ url: String) async -> Bool {
        (try? await request(url, timeout: .seconds(2)).status) == 200
    }
}

extension Duration {
    /// Whole nanoseconds (saturating).
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : product + attoseconds / 1_000_000_000
    }
}
