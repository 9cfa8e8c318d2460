import Crypto
import Foundation
import Hummingbird

/// Guards the console and the admin routes with `console.token`: a request passes with
/// `Authorization: Bearer <token>` or the cookie that `/console/?token=<token>` sets (so a
/// browser needs the token once). Without a token configured everything passes; the
/// configuration allows that only on a loopback address.
struct ConsoleAccess<Context: RequestContext>: RouterMiddleware {
    let token: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard !token.isEmpty else { return try await next(request, context) }
        if ConsoleToken.presented(request).contains(where: { ConsoleToken.equal($0, token) }) { return try await next(request, context) }
        // The one-time login: the token in the console's URL becomes an HttpOnly cookie.
        if request.uri.path.hasPrefix("/console"), let offered = request.uri.queryParameters.get("token"), ConsoleToken.equal(offered, token) {
            var headers = HTTPFields()
            headers[.location] = "/console/"
            headers[.setCookie] = "\(ConsoleToken.cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict"
            return Response(status: .seeOther, headers: headers)
        }
        throw GatewayError(
            .unauthorized, code: "unauthorized",
            "the console needs console.token: open /console/?token=<token> once, or send Authorization: Bearer <token>")
    }
}

/// Reading and comparing console tokens.
enum ConsoleToken {
    static let cookieName = "braid_console"

    /// Tokens the request carries: the bearer token and the console cookie.
    static func presented(_ request: Request) -> [String] {
        var found: [String] = []
        if let authorization = request.headers[.authorization], authorization.hasPrefix("Bearer ") {
            found.append(String(authorization.dropFirst("Bearer ".count)).trimmingCharacters(in: .whitespaces))
        }
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0] == cookieName { found.append(String(parts[1])) }
            }
        }
        return found
    }

    /// Compares digests, so the time taken says nothing about how much of a guess was right.
    static func equal(_ offered: String, _ token: String) -> Bool {
        SHA256.hash(data: Array(offered.utf8)) == SHA256.hash(data: Array(token.utf8))
    }
}
