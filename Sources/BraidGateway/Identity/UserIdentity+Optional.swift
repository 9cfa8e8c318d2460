import Hummingbird

extension UserIdentity {
    /// The verified user of a route anyone may call (search, events), nil when the request is
    /// anonymous: no `Authorization` header (jwt), no user named by the proxy (proxy),
    /// `identity.mode` query (nobody is verified), or an administrator's request. A
    /// credential that is present but does not verify is a 401, as on the personalised routes:
    /// a client that means to be signed in learns that it is not.
    func caller(request: Request, context: GatewayRequestContext) async throws(GatewayError) -> String? {
        guard !context.isAdmin else { return nil }
        switch source {
        case .query:
            return nil
        case .jwt:
            guard request.headers[.authorization] != nil else { return nil }
        case .proxy(let proxy):
            // No user named: nothing is claimed, whatever the proof.
            guard let named = request.headers[proxy.userHeader], !named.isEmpty else { return nil }
        }
        // The rate limiter verified the credential already: once per request.
        var verification = context.verification
        if verification == nil { verification = await verify(request) }
        return try verification?.get()
    }
}
