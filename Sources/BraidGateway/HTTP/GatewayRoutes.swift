import BraidContracts
import BraidCore
import BraidExperiments
import BraidObservability
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Tracing

/// The gateway's HTTP surface (`Schemas/openapi.yaml`): thin handlers that parse, call a
/// service, and encode. Every failure leaves as a JSON error.
///
/// Two surfaces: the public routes (search, feeds, events, health), and the admin surface
/// (`/metrics`, `/v1/experiments/*`, the console and `/v1/admin/*`), which either shares the
/// public listener behind ``AdminAccess`` (``router()``) or has a listener of its own
/// (``adminRouter()``; ``AccessPolicy/separateAdminListener``).
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
    /// Who a personalised request is for.
    public let identity: UserIdentity
    public let access: AccessPolicy
    /// Per-caller token buckets of the public listener (`gateway.rate_limits`); nil: none.
    public let rateLimiter: RateLimiter?

    public init(
        search: SearchService, components: ComponentService, events: EventService, readiness: Readiness, defaultPerPage: Int,
        batchTimeout: Duration, console: ConsoleRoutes? = nil, tracing: Bool = false, identity: UserIdentity = .query,
        access: AccessPolicy = .development, rateLimiter: RateLimiter? = nil
    ) {
        self.rateLimiter = rateLimiter
        self.console = console
        self.tracing = tracing
        self.search = search
        self.components = components
        self.events = events
        self.readiness = readiness
        self.defaultPerPage = defaultPerPage
        self.batchTimeout = batchTimeout
        self.identity = identity
        self.access = access
    }

    /// Largest accepted request body.
    static let maxBodyBytes = HTTPLimits.maxBodyBytes

    /// The public listener's router: the public routes, plus the admin surface behind
    /// ``AdminAccess`` unless it has a listener of its own.
    public func router() -> Router<GatewayRequestContext> {
        let router = base()
        if !access.corsOrigins.isEmpty { router.add(middleware: CORSMiddleware(origins: Set(access.corsOrigins))) }
        if !access.separateAdminListener { router.add(middleware: AdminRecognition(credentials: access.credentials)) }
        // After admin recognition: an administrator's requests are not limited.
        if let rateLimiter { router.add(middleware: RateLimitMiddleware(limiter: rateLimiter, identity: identity, proxies: access.proxies)) }
        addPublicRoutes(to: router)
        if !access.separateAdminListener {
            addAdminRoutes(
                to: router.group().add(
                    middleware: AdminAccess(credentials: access.credentials, secureCookie: access.secureCookie(loopback: access.publicLoopback))))
        }
        return router
    }

    /// The admin listener's router: everything behind ``AdminAccess``, the public routes too
    /// (the console draws from them, naming any user).
    public func adminRouter() -> Router<GatewayRequestContext> {
        let router = base()
        router.add(middleware: AdminAccess(credentials: access.credentials, secureCookie: access.secureCookie(loopback: access.adminLoopback)))
        addPublicRoutes(to: router)
        addAdminRoutes(to: router)
        return router
    }

    private func base() -> Router<GatewayRequestContext> {
        let router = Router(context: GatewayRequestContext.self)
        if tracing {
            // Outermost, so the span covers the whole request; cursors and console tokens are
            // not copied into span attributes.
            router.add(middleware: TracingMiddleware(redactingQueryParameters: ["cursor", "token"]))
        }
        router.add(middleware: SecurityHeadersMiddleware())
        router.add(middleware: HTTPMetricsMiddleware())
        router.add(middleware: JSONErrorMiddleware(proxies: access.proxies))
        return router
    }

    private func addPublicRoutes<Routes: RouterMethods<GatewayRequestContext>>(to router: Routes) {
        router.get("/v1/search") { request, context in
            var parameters = try SearchParameters.parse(try QueryString.parse(request.uri.query), defaultPerPage: defaultPerPage)
            // Whom the page's impression id is for (its user key binds its events to them).
            parameters.user = try await identity.caller(request: request, context: context)
            return try JSONResponse.encode(try await search.page(parameters))
        }
        router.get("/v1/feeds/:feed") { request, context in
            let query = try QueryString.parse(request.uri.query)
            let feed = try Self.name(context, "feed")
            let user = try await identity.user(claimed: query["user"], request: request, context: context)
            let session = try SearchParameters.text(query["session"], name: "session", maxLength: 128)
            return try JSONResponse.encode(try components.layout(
                feed: feed, user: user, session: session, verified: identity.isVerified && !context.isAdmin,
                userInURLs: !identity.isVerified || context.isAdmin))
        }
        router.get("/v1/feeds/:feed/components/:component") { request, context in
            let query = try QueryString.parse(request.uri.query)
            let feed = try Self.name(context, "feed")
            let component = try Self.name(context, "component")
            let user = try await identity.user(claimed: query["user"], request: request, context: context)
            let content = try await components.content(
                feed: feed, component: component, user: user,
                cursor: try SearchParameters.text(query["cursor"], name: "cursor", maxLength: CursorCodec.maxTextLength), query: try Self.tabQuery(query["q"]),
                verified: identity.isVerified && !context.isAdmin)
            return Self.conditional(content, ifNoneMatch: request.headers[.ifNoneMatch])
        }
        router.post("/v1/feeds/:feed/components:batchGet") { request, context in
            let feed = try Self.name(context, "feed")
            let body = try await Self.decode(BatchGetBody.self, from: request)
            let user = try await identity.user(claimed: body.user, request: request, context: context)
            guard (1...20).contains(body.components.count) else { throw GatewayError.badRequest("components must list 1 to 20 names", code: "invalid_body") }
            for name in body.components where !Names.isValid(name) {
                throw GatewayError.badRequest("component names must be \(Names.rule)", code: "invalid_body")
            }
            if let timeout = body.timeoutMs, !(1...10_000).contains(timeout) {
                throw GatewayError.badRequest("timeout_ms must be 1 to 10000", code: "invalid_body")
            }
            let timeout = body.timeoutMs.map { Duration.milliseconds($0) } ?? batchTimeout
            let contents = try await components.batch(
                feed: feed, components: body.components, user: user, verified: identity.isVerified && !context.isAdmin, timeout: timeout)
            var writer = ComponentResponseWriter(capacity: 16_384)
            writer.writeBatch(contents)
            return JSONResponse.bytes(writer.bytes)
        }
        router.post("/v1/events") { request, context in
            let body = try await Self.decode(EventsBody.self, from: request)
            let caller = try await identity.caller(request: request, context: context)
            return try JSONResponse.encode(["accepted": try await events.accept(body.events, caller: caller)], status: .accepted)
        }
        router.get("/healthz") { _, _ in try JSONResponse.encode(Readiness.Report(status: .ok, checks: [:])) }
        router.get("/readyz") { _, _ in
            let report = await readiness.check()
            return try JSONResponse.encode(report, status: report.status == .ok ? .ok : .serviceUnavailable)
        }
    }

    /// `/metrics`, experiment outcomes, and the console with its `/v1/admin/*` routes.
    private func addAdminRoutes<Routes: RouterMethods<GatewayRequestContext>>(to router: Routes) {
        router.get("/v1/experiments/:id") { _, context in
            let id = context.parameters.get("id") ?? ""
            guard Names.isValid(id) else { throw GatewayError.badRequest("an experiment id is \(Names.rule)", code: "invalid_parameter") }
            var outcome = try await events.outcome(of: id)
            outcome.layout = try await events.layoutOutcome(of: id)
            return try JSONResponse.encode(outcome)
        }
        router.get("/metrics") { _, _ in MetricsEndpoint.response() }
        console?.add(to: router)
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
        } catch is NIOTooManyBytesError {
            throw GatewayError(.contentTooLarge, code: "payload_too_large", "the body must be at most \(maxBodyBytes) bytes")
        } catch {
            // A malformed chunked body: RequestFraming has answered 400 and closes the connection.
            throw GatewayError.badRequest("the body could not be read: \(error)", code: "invalid_body")
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

    static func name(_ context: GatewayRequestContext, _ parameter: String) throws(GatewayError) -> String {
        let value = context.parameters.get(parameter) ?? ""
        guard Names.isValid(value) else { throw .notFound("\(parameter) '\(value)' does not exist (names are \(Names.rule))") }
        return value
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
    /// An interleaved page's impression id is in `Braid-Impression-Id` too: a revalidated
    /// page is a new impression, and a 304 has no body to carry it.
    static func conditional(_ content: ComponentContentResponse, ifNoneMatch: String?) -> Response {
        var headers = HTTPFields()
        if let impression = content.impressionID { headers[.braidImpressionID] = impression }
        guard let hash = content.etag else { return JSONResponse.bytes(content.json, headers: headers) }
        let etag = "\"\(hash)\""
        headers[.eTag] = etag
        if let ifNoneMatch, ETag.matches(ifNoneMatch, etag: etag) {
            return Response(status: .notModified, headers: headers)
        }
        return JSONResponse.bytes(content.json, headers: headers)
    }
}

extension HTTPField.Name {
    /// The impression id of an interleaved component page (also on a 304).
    static let braidImpressionID = Self("Braid-Impression-Id")!
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
