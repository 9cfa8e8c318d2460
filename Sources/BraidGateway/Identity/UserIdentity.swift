import Hummingbird

/// Who a personalised request (`/v1/feeds/…`) is for (`identity.mode`).
///
/// - `query`: the `user` the request names, unverified: local development on loopback only
///   (a gateway listening anywhere else refuses to start in this mode).
/// - `jwt`: the `sub` of a verified bearer token (``JWTVerifier``).
/// - `proxy`: a header set by a trusted proxy that proves itself (``ProxyCredential``).
///
/// In the two verified modes a request may still name its user (`user=`, or `user` in a
/// batchGet body), but only the authenticated one: naming another is a 403, so no user can
/// read another's components. An administrator's request (``GatewayRequestContext/isAdmin``)
/// names any user: the console previews feeds that way.
public struct UserIdentity: Sendable {
    public enum Source: Sendable {
        case query
        case jwt(JWTVerifier)
        case proxy(ProxyCredential)
    }

    public let source: Source

    public init(_ source: Source) {
        self.source = source
    }

    public static let query = UserIdentity(.query)

    /// Whether users are verified (and `user=` is then optional).
    public var isVerified: Bool {
        if case .query = source { return false }
        return true
    }

    func user(claimed: String?, request: Request, context: GatewayRequestContext) async throws(GatewayError) -> String {
        if case .query = source { return try Self.validated(claimed) }
        if context.isAdmin { return try Self.validated(claimed) }
        // The rate limiter verified the credential already (once per request: rejections are counted once).
        var verification = context.verification
        if verification == nil { verification = await verify(request) }
        guard let verification else { return try Self.validated(claimed) }
        let verified = try verification.get()
        if let claimed, claimed != verified {
            throw GatewayError(.forbidden, code: "forbidden", "this credential is for another user: leave user out, or name the authenticated user")
        }
        return try Self.validated(verified)
    }

    /// The credential's user, or why it is refused; nil in `query` mode (no user is verified).
    func verify(_ request: Request) async -> Result<String, GatewayError>? {
        do throws(GatewayError) {
            switch source {
            case .query: return nil
            case .jwt(let verifier): return .success(try await verifier.user(authorization: request.headers[.authorization]))
            case .proxy(let proxy): return .success(try proxy.user(request.headers))
            }
        } catch {
            return .failure(error)
        }
    }

    /// The verified user of a request to be charged for it (``RateLimitMiddleware``), nil
    /// when there is none; the outcome is kept in the context for ``user(claimed:request:context:)``.
    func verifiedUser(request: Request, context: inout GatewayRequestContext) async -> String? {
        guard let verification = await verify(request) else { return nil }
        context.verification = verification
        return try? verification.get()
    }

    static func validated(_ raw: String?) throws(GatewayError) -> String {
        guard let raw, (1...128).contains(raw.unicodeScalars.count), raw.contains(where: { !$0.isWhitespace }) else {
            throw .badRequest("user is required (1 to 128 characters)", code: "invalid_parameter")
        }
        return raw
    }
}
