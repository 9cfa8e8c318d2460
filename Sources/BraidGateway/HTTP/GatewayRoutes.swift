import BraidCore
import BraidObservability
import Foundation
import Hummingbird
import Tracing

/// The gateway's HTTP surface (`Schemas/openapi.yaml`): thin handlers that parse, call a
/// service, and encode. Every failure leaves as a JSON error.
public struct GatewayRoutes: Sendable {
    public let search: SearchService
    public let components: ComponentService
    public let events: EventService
    public let readiness: Readiness
    public let defaultPerPage: Int
    public let batchTimeout: Duration
    /// The console and its admin routes; nil when `console.enabled` is false.
    public let console: ConsoleRoutes?
    /// Whether each request is a server span (`tracing.enabled`): the page span, parent of
    /// the snapshot read, the live query, an inline miss and a refresh-ahead publish.
    public let tracing: Bool

    public init(
        search: SearchService, components: ComponentService, events: EventService, readiness: Readiness, defaultPerPage: Int,
        batchTimeout: Duration, console: ConsoleRoutes? = nil, tracing: Bool = false
    ) {
        self.console = console
        self.tracing = tracing
        self.search = search
        self.components = components
        self.events = events
        self.readiness = readiness
        self.defaultPerPage = defaultPerPage
        self.batchTimeout = batchTimeout
    }

    /// Largest accepted request body (a batchGet of 20 names is well under 4 KiB).
    static let maxBodyBytes = 64 * 1024

    public func router() -> Router<BasicRequestContext> {
        let router = Router()
        if tracing {
            // Outermost, so the span covers the whole request; cursors and console tokens are
            // not copied into span attributes.
            router.add(middleware: TracingMiddleware(redactingQueryParameters: ["cursor", "token"]))
        }
        router.add(middleware: HTTPMetricsMiddleware())
        router.add(middleware: JSONErrorMiddleware())
        router.get("/v1/search") { request, _ in
            let parameters = try SearchParameters.parse(try QueryString.parse(request.uri.query), defaultPerPage: defaultPerPage)
            return try JSONResponse.encode(try await search.page(parameters))
        }
        router.get("/v1/feeds/:feed") { request, context in
            let query = try QueryString.parse(request.uri.query)
            let feed = try Self.name(context, "feed")
            return try JSONResponse.encode(try components.layout(feed: feed, user: try Self.user(query["user"])))
        }
        router.get("/v1/feeds/:feed/components/:component") { request, context in
            let query = try QueryString.parse(request.uri.query)
            let content = try await components.content(
                feed: try Self.name(context, "feed"), component: try Self.name(context, "component"),
                user: try Self.user(query["user"]), cursor: try SearchParameters.text(query["cursor"], name: "cursor", maxLength: CursorCodec.maxTextLength),
                query: try Self.tabQuery(query["q"]))
            return Self.conditional(content, ifNoneMatch: request.headers[.ifNoneMatch])
        }
        router.post("/v1/feeds/:feed/components:batchGet") { request, context in
            let feed = try Self.name(context, "feed")
            let body = try await Self.decode(BatchGetBody.self, from: request)
            let user = try Self.user(body.user)
            guard (1...20).contains(body.components.count) else { throw GatewayError.badRequest("components must list 1 to 20 names", code: "invalid_body") }
            for name in body.components where !Names.isValid(name) {
                throw GatewayError.badRequest("component names must be \(Names.rule)", code: "invalid_body")
            }
            if let timeout = body.timeoutMs, !(1...10_000).contains(timeout) {
                throw GatewayError.badRequest("timeout_ms must be 1 to 10000", code: "invalid_body")
            }
            let timeout = body.timeoutMs.map { Duration.milliseconds($0) } ?? batchTimeout
            let contents = try await components.batch(feed: feed, components: body.components, user: user, timeout: timeout)
            var writer = ComponentResponseWriter(capacity: 16_384)
            writer.writeBatch(contents)
            return JSONResponse.bytes(writer.bytes)
        }
        router.post("/v1/events") { request, _ in
            let body = try await Self.decode(EventsBody.self, from: request)
            return try JSONResponse.encode(["accepted": try await events.accept(body.events)], status: .accepted)
        }
        router.get("/v1/experiments/:id") { _, context in
            let id = context.parameters.get("id") ?? ""
            guard Names.isValid(id) else { throw GatewayError.badRequest("an experiment id is \(Names.rule)", code: "invalid_parameter") }
            return try JSONResponse.encode(try await events.outcome(of: id))
        }
        router.get("/healthz") { _, _ in try JSONResponse.encode(Readiness.Report(status: .ok, checks: [:])) }
        router.get("/readyz") { _, _ in
            let report = await readiness.check()
            return try JSONResponse.encode(report, status: report.status == .ok ? .ok : .serviceUnavailable)
        }
        MetricsEndpoint.addRoute(to: router)
        console?.add(to: router)
        return router
    }

    struct EventsBody: Decodable {
        var events: [EventService.Event]
    }

    struct BatchGetBody: Decodable {
        var user: String?
        var components: [String]
        var timeoutMs: Int?

        enum CodingKeys: String, CodingKey {
            case user, components
            case timeoutMs = "timeout_ms"
        }
    }

    static func decode<T: Decodable>(_ type: T.Type, from request: Request) async throws -> T {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: maxBodyBytes)
        } catch {
            throw GatewayError(.contentTooLarge, code: "payload_too_large", "the body must be at most \(maxBodyBytes) bytes")
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView))
        } catch let error as DecodingError {
            throw GatewayError.badRequest("the body is not valid: \(Self.describe(error))", code: "invalid_body")
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            return path.isEmpty ? "" : " at \(path)"
        }
        switch error {
        case .keyNotFound(let key, let context): return "missing \(key.stringValue)\(path(context))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context): return "wrong type\(path(context))"
        case .dataCorrupted(let context): return context.codingPath.isEmpty ? "not JSON" : "bad value\(path(context))"
        @unknown default: return "\(error)"
        }
    }

    static func name(_ context: BasicRequestContext, _ parameter: String) throws(GatewayError) -> String {
        let value = context.parameters.get(parameter) ?? ""
        guard Names.isValid(value) else { throw .notFound("\(parameter) '\(value)' does not exist (names are \(Names.rule))") }
        return value
    }

    static func user(_ raw: String?) throws(GatewayError) -> String {
        guard let raw, (1...128).contains(raw.unicodeScalars.count), raw.contains(where: { !$0.isWhitespace }) else {
            throw .badRequest("user is required (1 to 128 characters)", code: "invalid_parameter")
        }
        return raw
    }

    /// `q` of a component: a search inside a profile tab (same limits as search's `q`).
    static func tabQuery(_ raw: String?) throws(GatewayError) -> String? {
        guard let raw else { return nil }
        guard raw.contains(where: { !$0.isWhitespace }), raw.unicodeScalars.count <= SearchParameters.maxQueryLength else {
            throw .badRequest("q must be 1 to \(SearchParameters.maxQueryLength) characters and not blank", code: "invalid_parameter")
        }
        return raw
    }

    /// 304 when the client already has this content (If-None-Match holds its ETag: the
    /// content hash of the page, also for fixed-size components whose state hash is not).
    static func conditional(_ content: ComponentContentResponse, ifNoneMatch: String?) -> Response {
        guard let hash = content.etag else { return JSONResponse.bytes(content.json) }
        let etag = "\"\(hash)\""
        if let ifNoneMatch, ETag.matches(ifNoneMatch, etag: etag) {
            return Response(status: .notModified, headers: [.eTag: etag])
        }
        return JSONResponse.bytes(content.json, headers: [.eTag: etag])
    }
}

enum ETag {
    /// RFC 9110 weak comparison against a comma-separated If-None-Match list (or `*`).
    static func matches(_ header: String, etag: String) -> Bool {
        header.split(separator: ",").contains { candidate in
            let tag = candidate.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }
}
