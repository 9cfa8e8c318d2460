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
        let verified: String
        switch source {
        case .query:
            return try Self.validated(claimed)
        case .jwt(let verifier):
            if context.isAdmin { return try Self.validated(claimed) }
            verified = try await verifier.user(authorization: request.headers[.authorization])
        case .proxy(let proxy):
            if context.isAdmin { return try Self.validated(claimed) }
            verified = try proxy.user(request.headers)
        }
        if let claimed, claimed != verified {
            throw GatewayError(.forbidden, code: "forbidden", "this credential is for another user: leave user out, or name the authenticated user")
        }
        return try Self.validated(verified)
    }

    static func validated(_ raw: String?) throws(GatewayError) -> String {
        guard let raw, (1...128).contains(raw.unicodeScalars.count), raw.contains(where: { !$0.isWhitespace }) else {
            throw .badRequest("user is required (1 to 128 characters)", code: "invalid_parameter")
        }
        return raw
    }
}
