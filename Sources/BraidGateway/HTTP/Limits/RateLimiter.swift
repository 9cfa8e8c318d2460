import BraidContracts
import BraidCore
import BraidObservability
import HTTPTypes
import Hummingbird
import Metrics
import Synchronization

/// Per-caller rate limits of the public routes (`gateway.rate_limits`): a token bucket per
/// verified user, or, for a request without one, per client address (through
/// ``TrustedProxies``; an IPv6 client by its /64, which one subscriber holds whole).
///
/// With a ``SharedRateBudget`` (`gateway.rate_limits.shared`, the default) the buckets are
/// fleet-wide: a request is admitted when this gateway holds a token of the caller's bucket in
/// Redis (taken in batches in the background: no Redis round trip on the page path) and its
/// local bucket agrees, so N gateways behind a balancer admit about the configured rate, not
/// N times it. While Redis cannot be reached, the local buckets decide alone (fail open to the
/// per-gateway rate), counted by `braid_gateway_rate_limit_shared_unavailable_total`.
/// Otherwise the limiter fails only when its table is full of active callers
/// (``TokenBuckets``): it admits the new caller and counts it
/// (`braid_gateway_rate_limit_untracked_total`).
public final class RateLimiter: Sendable {
    private let identities: Mutex<TokenBuckets<String>>
    private let addresses: Mutex<TokenBuckets<String>>
    private let shared: SharedRateBudget?
    /// Callers at a loopback address go unlimited (`gateway.rate_limits.exempt_loopback`).
    let exemptsLoopback: Bool

    public init(
        perIdentity: TokenBuckets<String>.Limit, perAddress: TokenBuckets<String>.Limit, maxCallers: Int, exemptLoopback: Bool = false,
        shared: SharedRateBudget? = nil
    ) {
        self.shared = shared
        identities = Mutex(TokenBuckets(limit: perIdentity, capacity: maxCallers))
        addresses = Mutex(TokenBuckets(limit: perAddress, capacity: maxCallers))
        exemptsLoopback = exemptLoopback
    }

    public enum Caller: Sendable, Equatable {
        case identity(String)
        case address(String)

        var kind: Kind {
            switch self {
            case .identity: .identity
            case .address: .address
            }
        }
    }

    /// Which bucket a caller has (the `kind` label of the metrics).
    public enum Kind: String, Sendable, Hashable {
        case identity, address
    }

    private static let origin = ContinuousClock.now

    /// Seconds on the monotonic clock the buckets share.
    static func now() -> Double {
        (ContinuousClock.now - origin).inSeconds
    }

    /// Takes a token for `caller`; throws the 429 when its bucket is empty.
    public func take(_ caller: Caller) throws(GatewayError) {
        let now = Self.now()
        let kind = caller.kind
        let key: String
        let result: (decision: TokenBuckets<String>.Decision, tracked: Int)
        switch caller {
        case .identity(let user):
            key = user
            result = identities.withLock { ($0.take(key, now: now), $0.count) }
        case .address(let address):
            key = Self.key(address: address)
            result = addresses.withLock { ($0.take(key, now: now), $0.count) }
        }
        let (local, tracked) = result
        Gauge(.gatewayRateLimitCallers, dimensions: [("kind", kind.rawValue)]).record(tracked)
        // The local bucket first: a request it refuses spends no token of the fleet's.
        if case .rejected(let retryAfter) = local { throw Self.rejection(kind, retryAfter: retryAfter) }
        if local == .untracked { Counter(.gatewayRateLimitUntracked, dimensions: [("kind", kind.rawValue)]).increment() }
        guard let shared else { return }
        switch shared.take(kind, key, now: now) {
        case .admitted, .pending:
            return
        case .unavailable:
            Counter(.gatewayRateLimitSharedUnavailable, dimensions: [("kind", kind.rawValue)]).increment()
        case .untracked:
            Counter(.gatewayRateLimitUntracked, dimensions: [("kind", kind.rawValue)]).increment()
        case .rejected(let retryAfter):
            throw Self.rejection(kind, retryAfter: retryAfter)
        }
    }

    private static func rejection(_ kind: Kind, retryAfter: Double) -> GatewayError {
        Counter(.gatewayRateLimitRejections, dimensions: [("kind", kind.rawValue)]).increment()
        let seconds = max(1, Int(retryAfter.rounded(.up)))
        return GatewayError(
            .tooManyRequests, code: "rate_limited", "too many requests from this \(kind == .identity ? "user" : "address"); retry after \(seconds) s",
            headers: [.retryAfter: "\(seconds)"])
    }

    /// The bucket of an address: itself for IPv4, its /64 for IPv6 (a subscriber gets a whole
    /// /64 and can use any address in it).
    static func key(address: String) -> String {
        // An IPv4 peer of a dual-stack socket (`::ffff:192.0.2.1`) is that IPv4 address.
        if address.lowercased().hasPrefix("::ffff:"), address.contains(".") { return String(address.dropFirst(7)) }
        guard address.contains(":"), let range = AddressRange("\(address)/64") else { return address }
        return range.description
    }
}

/// Applies ``RateLimiter`` to the public routes that compute or record something (search,
/// feeds and their components, events); health checks, `/metrics`, the console and the admin
/// routes are not limited, and neither is an administrator's request, nor, with
/// ``RateLimiter/exemptsLoopback``, a caller at a loopback address.
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext
    let limiter: RateLimiter
    let identity: UserIdentity
    let proxies: TrustedProxies

    static func isLimited(_ path: String) -> Bool {
        path == "/v1/search" || path.hasPrefix("/v1/feeds/") || path == "/v1/events"
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard !context.isAdmin, Self.isLimited(request.uri.path) else { return try await next(request, context) }
        let address = proxies.client(of: request, context: context)
        if limiter.exemptsLoopback, let address, AddressRange.isLoopback(address) { return try await next(request, context) }
        var context = context
        if let user = await identity.verifiedUser(request: request, context: &context) {
            try limiter.take(.identity(user))
        } else if let address {
            try limiter.take(.address(address))
        }
        // No verified user and no address: only the in-process router test client has neither.
        return try await next(request, context)
    }
}
