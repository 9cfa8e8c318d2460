import HTTPTypes
import Hummingbird

/// Headers every response carries, errors included: a Content-Security-Policy (with
/// `frame-ancestors 'none'`: no page may frame the gateway's), and the older equivalents.
/// JSON needs no sources at all; the console's page loads only its own script and style, and
/// its login form posts to the gateway itself.
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    static var apiPolicy: String { "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'" }
    static var consolePolicy: String {
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            + "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        let console = request.uri.path.hasPrefix("/console")
        response.headers[.contentSecurityPolicy] = console ? Self.consolePolicy : Self.apiPolicy
        response.headers[.xFrameOptions] = "DENY"
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.referrerPolicy] = "no-referrer"
        return response
    }
}

extension HTTPField.Name {
    static let xFrameOptions = Self("X-Frame-Options")!
    static let referrerPolicy = Self("Referrer-Policy")!
}
