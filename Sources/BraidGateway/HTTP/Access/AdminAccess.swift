import BraidCore
import Foundation
import Hummingbird

/// The credentials of the admin surface (`/metrics`, `/v1/admin/*`, `/v1/experiments/*`, the
/// console): `admin.token` for machines (`Authorization: Bearer`), `console.token` for
/// people (bearer, or once in exchange for a session cookie, ``ConsoleSession``). With neither
/// configured the surface is open, which a gateway allows only on loopback (``BraidConfig``'s
/// exposure check).
public struct AdminCredentials: Sendable, RedactedDescription {
    let adminToken: Secret
    let consoleToken: Secret
    let session: ConsoleSession?

    /// - Parameter sessionLifetime: how long a console session cookie is valid.
    public init(adminToken: Secret, consoleToken: Secret, sessionLifetime: Duration = .seconds(28_800)) {
        self.adminToken = adminToken
        self.consoleToken = consoleToken
        session = consoleToken.isEmpty ? nil : ConsoleSession(token: consoleToken, lifetime: sessionLifetime)
    }

    public static let open = AdminCredentials(adminToken: .none, consoleToken: .none)

    var isOpen: Bool { adminToken.isEmpty && consoleToken.isEmpty }

    /// Whether the request carries a configured token as a bearer token, or a console session
    /// cookie that is valid now.
    func isPresented(by request: Request, now: Date = Date()) -> Bool {
        if let bearer = AdminToken.bearer(request) {
            if !adminToken.isEmpty, adminToken.matches(bearer.utf8) { return true }
            if !consoleToken.isEmpty, consoleToken.matches(bearer.utf8) { return true }
        }
        guard let session else { return false }
        return AdminToken.cookies(request).contains { session.isValid($0, now: now) }
    }

    /// Whether `offered` is the console token (a login).
    func isConsoleToken(_ offered: String) -> Bool {
        !consoleToken.isEmpty && consoleToken.matches(offered.utf8)
    }
}

/// Guards the admin surface with ``AdminCredentials`` and marks what passes as an
/// administrator's request (``GatewayRequestContext/isAdmin``).
///
/// People log in to the console once with its token, which buys a session cookie: by posting
/// the login form (`POST /console/session`, `token=…`), or by opening `/console/?token=…`,
/// which answers with the cookie and a redirect to `/console/`, so the token leaves the address
/// bar at once. Opening the console without a session shows the login form.
struct AdminAccess: RouterMiddleware {
    typealias Context = GatewayRequestContext
    static let loginPath = "/console/session"
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
        let path = request.uri.path
        if let session = credentials.session, path.hasPrefix("/console") {
            if path == Self.loginPath, request.method == .post {
                return try await login(request, context: context, session: session)
            }
            if let offered = request.uri.queryParameters.get("token") {
                guard credentials.isConsoleToken(String(offered)) else { throw Self.refused }
                return signedIn(session, request: request, context: context)
            }
            if request.method == .get, path == "/console" || path == "/console/" {
                var form = ConsoleAssets.login.response(status: .unauthorized)
                form.headers[.wwwAuthenticate] = "Bearer"
                return form
            }
        }
        throw Self.refused
    }

    /// `POST /console/session` with a form (or JSON) body holding `token`.
    private func login(_ request: Request, context: Context, session: ConsoleSession) async throws -> Response {
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: 4_096)
        } catch {
            throw GatewayError(.contentTooLarge, code: "payload_too_large", "the login form must be at most 4096 bytes")
        }
        let text = String(buffer: body)
        let offered: String?
        if request.headers[.contentType]?.lowercased().hasPrefix("application/json") == true {
            offered = (try? JSONDecoder().decode([String: String].self, from: Data(text.utf8)))?["token"]
        } else {
            offered = (try? QueryString.parse(text))?["token"]
        }
        guard let offered, credentials.isConsoleToken(offered) else { throw Self.refused }
        return signedIn(session, request: request, context: context)
    }

    private func signedIn(_ session: ConsoleSession, request: Request, context: Context) -> Response {
        var headers = HTTPFields()
        headers[.location] = "/console/"
        headers[.setCookie] = session.setCookie(session.issue(), secure: secureCookie(request, context))
        headers[.cacheControl] = "no-store"
        return Response(status: .seeOther, headers: headers)
    }

    static var refused: GatewayError {
        GatewayError(
            .unauthorized, code: "unauthorized",
            "this route needs the admin token (Authorization: Bearer <token>); people sign in to the console at /console/ with the console token",
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

/// Reading admin tokens and console cookies from a request.
enum AdminToken {
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
                if parts.count == 2, parts[0] == ConsoleSession.cookieName { found.append(String(parts[1])) }
            }
        }
        return found
    }
}
