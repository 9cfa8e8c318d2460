import Crypto
import Foundation
import Hummingbird

/// The credentials of the admin surface (`/metrics`, `/v1/admin/*`, `/v1/experiments/*`, the
/// console): `admin.token` for machines (`Authorization: Bearer`), `console.token` for
/// people (bearer, or the cookie that `/console/?token=` sets once). With neither configured
/// the surface is open, which a gateway allows only on loopback (``BraidConfig``'s exposure check).
public struct AdminCredentials: Sendable {
    let adminToken: String
    let consoleToken: String

    public init(adminToken: String, consoleToken: String) {
        self.adminToken = adminToken
        self.consoleToken = consoleToken
    }

    public static let open = AdminCredentials(adminToken: "", consoleToken: "")

    var isOpen: Bool { adminToken.isEmpty && consoleToken.isEmpty }

    /// Whether the request carries a configured token: either as a bearer token, the console
    /// token as its cookie.
    func isPresented(by request: Request) -> Bool {
        if let bearer = AdminToken.bearer(request) {
            if !adminToken.isEmpty, AdminToken.equal(bearer, adminToken) { return true }
            if !consoleToken.isEmpty, AdminToken.equal(bearer, consoleToken) { return true }
        }
        guard !consoleToken.isEmpty else { return false }
        return AdminToken.cookies(request).contains { AdminToken.equal($0, consoleToken) }
    }
}

/// Guards the admin surface with ``AdminCredentials`` and marks what passes as an
/// administrator's request (``GatewayRequestContext/isAdmin``).
struct AdminAccess: RouterMiddleware {
    typealias Context = GatewayRequestContext
    let credentials: AdminCredentials
    /// Whether the console cookie gets `Secure`: the request came over TLS (as a trusted
    /// proxy reports), or the listener is not on loopback (so it must be behind TLS).
    let secureCookie: @Sendable (Request, GatewayRequestContext) -> Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        if credentials.isOpen || credentials.isPresented(by: request) {
            context.isAdmin = true
            return try await next(request, context)
        }
        // The one-time login: the token in the console's URL becomes an HttpOnly cookie.
        if request.uri.path.hasPrefix("/console"), !credentials.consoleToken.isEmpty,
            let offered = request.uri.queryParameters.get("token"), AdminToken.equal(offered, credentials.consoleToken)
        {
            var headers = HTTPFields()
            headers[.location] = "/console/"
            let secure = secureCookie(request, context) ? "; Secure" : ""
            headers[.setCookie] = "\(AdminToken.cookieName)=\(credentials.consoleToken); Path=/; HttpOnly; SameSite=Strict\(secure)"
            return Response(status: .seeOther, headers: headers)
        }
        throw GatewayError(
            .unauthorized, code: "unauthorized",
            "this route needs the admin token (Authorization: Bearer <token>); the console: open /console/?token=<console token> once",
            headers: [.wwwAuthenticate: "Bearer"])
    }
}

/// Marks requests to the public routes that carry an admin credential as an administrator's,
/// without refusing any (on a listener that shares the admin surface).
struct AdminRecognition: RouterMiddleware {
    typealias Context = GatewayRequestContext
    let credentials: AdminCredentials

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard !credentials.isOpen, credentials.isPresented(by: request) else { return try await next(request, context) }
        var context = context
        context.isAdmin = true
        return try await next(request, context)
    }
}

/// Reading and comparing admin and console tokens.
enum AdminToken {
    static let cookieName = "braid_console"

    static func bearer(_ request: Request) -> String? {
        guard let authorization = request.headers[.authorization], authorization.count > 7, authorization.prefix(7).lowercased() == "bearer "
        else { return nil }
        return String(authorization.dropFirst(7)).trimmingCharacters(in: .whitespaces)
    }

    static func cookies(_ request: Request) -> [String] {
        var found: [String] = []
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
