import Hummingbird
import NIOCore

/// The request context of the gateway's routers: Hummingbird's storage, the peer's address
/// (``TrustedProxies`` decide what `X-Forwarded-*` from it is worth), and whether the
/// request is an administrator's.
public struct GatewayRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The TCP peer; nil when there is none (the router test client).
    public let remoteAddress: SocketAddress?
    /// Set by ``AdminAccess`` once the request proved an admin credential, and for every
    /// request to the admin listener: such a request may name any user with `user=` (the
    /// console's feed preview).
    public var isAdmin = false
    /// The verified user, or why the credential was refused, once ``RateLimitMiddleware`` has
    /// checked it (nil before, and in `identity.mode` query): handlers reuse it.
    var verification: Result<String, GatewayError>?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// The peer's numeric IP address.
    var peerAddress: String? { remoteAddress?.ipAddress }
}
