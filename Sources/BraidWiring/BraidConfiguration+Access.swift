import AsyncHTTPClient
import BraidConfig
import BraidCore
import BraidGateway
import BraidRedis
import Foundation
import Logging
import NIOCore
import NIOHTTP1

extension BraidConfiguration {
    /// `http.*` as the servers apply them.
    public var httpLimits: HTTPLimits {
        HTTPLimits(
            idleTimeout: http.idleTimeout, headerTimeout: http.headerTimeout, bodyTimeout: http.bodyTimeout,
            maxConnections: http.maxConnections)
    }

    /// Who may reach what on the gateway's listeners (already resolved and checked).
    public func accessPolicy(listeners: [ResolvedListener]) -> AccessPolicy {
        let admin = listeners.first { $0.role == .gatewayAdmin }
        return AccessPolicy(
            credentials: AdminCredentials(
                adminToken: self.admin.token, consoleToken: console.enabled ? console.token : .none,
                sessionLifetime: console.sessionTtl),
            proxies: TrustedProxies(gateway.trustedProxies.compactMap(AddressRange.init)), corsOrigins: gateway.corsOrigins,
            separateAdminListener: admin != nil, publicLoopback: listeners.first?.isLoopback ?? true,
            adminLoopback: admin?.isLoopback ?? listeners.first?.isLoopback ?? true)
    }

    /// `identity.*` as the routes apply it, and the service that keeps a JWKS fresh (if any).
    public func userIdentity(logger: Logger = Logger(label: "braid.gateway.identity")) -> (identity: UserIdentity, refresher: JWKSRefresher?) {
        switch identity.mode {
        case .query:
            return (.query, nil)
        case .proxy:
            let proxy = identity.proxy
            // validate() has checked the header names; a nil here would be a bug, so refuse everyone.
            guard let credential = ProxyCredential(userHeader: proxy.userHeader, secretHeader: proxy.secretHeader, secret: proxy.secret.bytes) else {
                preconditionFailure("identity.proxy header names were validated")
            }
            return (UserIdentity(.proxy(credential)), nil)
        case .jwt:
            let jwt = identity.jwt
            let keys = JWTKeySet(fetch: jwksFetch(), hs256Key: jwt.hs256Key, maxStale: jwt.jwksMaxStale, logger: logger)
            // validate(for: .gateway) has required both.
            guard let issuer = jwt.issuer, let audience = jwt.audience else { preconditionFailure("identity.jwt issuer and audience were validated") }
            let verifier = JWTVerifier(issuer: issuer, audience: audience, leeway: jwt.leeway, keys: keys)
            let refresher = jwt.jwksUrl == nil && jwt.jwksFile == nil ? nil : JWKSRefresher(keys: keys, interval: jwt.jwksRefresh)
            return (UserIdentity(.jwt(verifier)), refresher)
        }
    }

    /// Reads the JWKS document from `identity.jwt.jwks_file` or GETs `jwks_url` (5 s, at most 1 MiB).
    func jwksFetch() -> JWTKeySet.Fetch? {
        let jwt = identity.jwt
        if let path = jwt.jwksFile {
            return {
                guard let data = FileManager.default.contents(atPath: path) else { throw JWKSFetchError(message: "cannot read \(path)") }
                return data
            }
        }
        guard let url = jwt.jwksUrl else { return nil }
        return {
            var request = HTTPClientRequest(url: url)
            request.headers.add(name: "Accept", value: "application/json")
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
            var body = try await response.body.collect(upTo: 1 << 20)
            guard response.status == .ok else { throw JWKSFetchError(message: "\(url) answered \(response.status.code)") }
            return Data(body.readBytes(length: body.readableBytes) ?? [])
        }
    }
}

struct JWKSFetchError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

extension BraidConfiguration {
    /// The public listener's per-caller limits (`gateway.rate_limits`), with the shared budget
    /// to run beside the server when they are fleet-wide; nil when disabled.
    public func rateLimiter(redis: RedisClient) -> (limiter: RateLimiter, shared: SharedRateBudget?)? {
        let limits = gateway.rateLimits
        guard limits.enabled else { return nil }
        func limit(_ bucket: BucketSection) -> TokenBuckets<String>.Limit {
            .init(ratePerSecond: bucket.ratePerSecond, burst: Double(bucket.burst))
        }
        let shared = limits.shared
            ? SharedRateBudget(
                redis: redis, keys: self.redis.cacheKeys, perIdentity: limit(limits.perIdentity), perAddress: limit(limits.perAddress),
                maxCallers: limits.maxCallers)
            : nil
        let limiter = RateLimiter(
            perIdentity: limit(limits.perIdentity), perAddress: limit(limits.perAddress), maxCallers: limits.maxCallers,
            exemptLoopback: limits.exemptLoopback, shared: shared)
        return (limiter, shared)
    }
}
