import HTTPTypes
import Hummingbird

/// Who may reach what, and how requests are read: the admin credentials, where the admin
/// surface is served, the trusted proxies, CORS, and which listeners are on loopback.
public struct AccessPolicy: Sendable {
    public var credentials: AdminCredentials
    public var proxies: TrustedProxies
    /// `gateway.cors_origins`; empty: no CORS.
    public var corsOrigins: [String]
    /// Whether the admin surface has a listener of its own (the public one then lacks it: 404).
    public var separateAdminListener: Bool
    /// Whether the public listener, and the admin listener, are on loopback.
    public var publicLoopback: Bool
    public var adminLoopback: Bool

    public init(
        credentials: AdminCredentials, proxies: TrustedProxies, corsOrigins: [String], separateAdminListener: Bool, publicLoopback: Bool,
        adminLoopback: Bool
    ) {
        self.credentials = credentials
        self.proxies = proxies
        self.corsOrigins = corsOrigins
        self.separateAdminListener = separateAdminListener
        self.publicLoopback = publicLoopback
        self.adminLoopback = adminLoopback
    }

    /// `make run`: one loopback listener, no tokens, no proxies, no CORS.
    public static let development = AccessPolicy(
        credentials: .open, proxies: .none, corsOrigins: [], separateAdminListener: false, publicLoopback: true, adminLoopback: true)

    /// The cookie rule of ``AdminAccess`` for a listener.
    func secureCookie(loopback: Bool) -> @Sendable (Request, GatewayRequestContext) -> Bool {
        let proxies = proxies
        return { request, context in
            !loopback || proxies.forwardedHTTPS(peer: context.peerAddress, forwardedProto: request.headers[.xForwardedProto])
        }
    }
}
