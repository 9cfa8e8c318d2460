import Hummingbird

extension UserIdentity {
    /// The verified user of a route anyone may call (search, events), nil when the request is
    /// anonymous: no `Authorization` header (jwt), no user named by the proxy (proxy),
    /// `identity.mode` query (nobody is verified), or an administrator's request. A
    /// credential that is present but does not verify is a 401, as on the personalised routes:
    /// a client that means to be signed in learns that it is not.
    func verifiedUser(request: Request, context: GatewayRequestContext) async throws(GatewayError) -> String? {
        switch source {
        case .query:
            return nil
        case .jwt(let verifier):
            guard !context.isAdmin, let authorization = request.headers[.authorization] else { return nil }
            return try await verifier.user(authorization: authorization)
        case .proxy(let proxy):
            // No user named: nothing is claimed, whatever the proof.
            guard !context.isAdmin, let named = request.headers[proxy.userHeader], !named.isEmpty else { return nil }
            return try proxy.user(request.headers)
        }
    }
}
