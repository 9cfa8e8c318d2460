import Hummingbird

/// CORS for the public routes (`gateway.cors_origins`). Off when the list is empty: no
/// `Access-Control-*` header is ever sent, so browsers keep other origins out. `*` allows any
/// origin; credentials (cookies) are never allowed cross-origin.
struct CORSMiddleware<Context: RequestContext>: RouterMiddleware {
    let origins: Set<String>

    static var allowedMethods: String { "GET, POST, OPTIONS" }
    static var allowedHeaders: String { "Authorization, Content-Type, If-None-Match, traceparent" }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let origin = request.headers[.origin], let allowed = allow(origin) else { return try await next(request, context) }
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            return Response(status: .noContent, headers: headers(allowed, preflight: true))
        }
        var response = try await next(request, context)
        for field in headers(allowed, preflight: false) { response.headers[field.name] = field.value }
        return response
    }

    /// The value of `Access-Control-Allow-Origin` for `origin`, or nil when it is not allowed.
    func allow(_ origin: String) -> String? {
        if origins.contains("*") { return "*" }
        return origins.contains(origin) ? origin : nil
    }

    private func headers(_ allowed: String, preflight: Bool) -> HTTPFields {
        var fields: HTTPFields = [.accessControlAllowOrigin: allowed, .vary: "Origin"]
        // Retry-After is not CORS-safelisted: a browser app could not read a 429's otherwise.
        fields[.accessControlExposeHeaders] = "ETag, Retry-After"
        if preflight {
            fields[.accessControlAllowMethods] = Self.allowedMethods
            fields[.accessControlAllowHeaders] = Self.allowedHeaders
            fields[.accessControlMaxAge] = "600"
        }
        return fields
    }
}
