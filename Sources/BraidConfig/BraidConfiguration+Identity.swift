import BraidCore

extension BraidConfiguration {
    /// `admin.*`: the token of the admin surface, for machines (Prometheus, scripts).
    public struct AdminSection: Codable, Sendable, Equatable {
        /// `Authorization: Bearer <token>` on `/metrics` (gateway and worker), `/v1/admin/*`,
        /// `/v1/experiments/*` and the console. Required, and held to the rules of
        /// ``SecretStrength``, by a process that listens beyond loopback.
        public var token = Secret.none
        public init() {}
    }

    /// `identity.*`: how a personalised route (`/v1/feeds/…`) learns who is asking.
    public struct IdentitySection: Codable, Sendable, Equatable {
        public var mode = IdentityMode.query
        public var jwt = JWTSection()
        public var proxy = ProxySection()
        public init() {}
    }

    /// `identity.jwt.*`: bearer JWTs signed by the application's identity provider.
    public struct JWTSection: Codable, Sendable, Equatable {
        /// Required `iss`.
        public var issuer: String?
        /// Required in `aud`.
        public var audience: String?
        /// RS256 and ES256 keys: a JWKS document at this URL (refetched) …
        public var jwksUrl: String?
        /// … or in this file (reread).
        public var jwksFile: String?
        /// An HS256 key shared with the issuer (a secret); empty: HS256 is refused.
        public var hs256Key = Secret.none
        /// Clock skew allowed on `exp` and `nbf`.
        @Seconds public var leeway: Duration = .seconds(60)
        /// How often the JWKS is fetched again.
        @Seconds public var jwksRefresh: Duration = .seconds(300)
        /// How long the last JWKS that could be fetched stays in use while its source fails;
        /// after that every token is refused with a 503 until a fetch succeeds.
        @Seconds public var jwksMaxStale: Duration = .seconds(86_400)
        public init() {}

        enum CodingKeys: String, CodingKey {
            case issuer, audience, jwksUrl, jwksFile, hs256Key, leeway = "leewaySeconds", jwksRefresh = "jwksRefreshSeconds"
            case jwksMaxStale = "jwksMaxStaleSeconds"
        }
    }

    /// `identity.proxy.*`: a trusted proxy in front of the gateway authenticates users and
    /// names them in a header, proving itself with a shared secret in another header.
    public struct ProxySection: Codable, Sendable, Equatable {
        public var userHeader = "X-Braid-User"
        public var secretHeader = "X-Braid-Proxy-Secret"
        /// The shared secret (a secret); required in proxy mode.
        public var secret = Secret.none
        public init() {}
    }

    /// `http.*`: what every HTTP listener of a process allows a connection.
    public struct HTTPSection: Codable, Sendable, Equatable {
        /// A connection with no request for this long is closed.
        @Milliseconds public var idleTimeout: Duration = .seconds(60)
        /// A request's head must arrive in full within this time of its first byte (or of the
        /// connection opening): slowloris clients are cut off.
        @Milliseconds public var headerTimeout: Duration = .seconds(10)
        /// A request's body must arrive in full within this time of its head.
        @Milliseconds public var bodyTimeout: Duration = .seconds(30)
        /// Open connections per listener; past it the listener stops accepting until one closes.
        public var maxConnections = 4_096
        public init() {}

        enum CodingKeys: String, CodingKey {
            case idleTimeout = "idleTimeoutMs", headerTimeout = "headerTimeoutMs", bodyTimeout = "bodyTimeoutMs", maxConnections
        }
    }
}

/// `identity.mode`.
public enum IdentityMode: String, NamedCases, Hashable {
    /// `user=` in the query string (or `user` in a batchGet body): anyone can claim to be
    /// anyone, so a process that listens beyond loopback refuses it. Local development only.
    case query
    /// `Authorization: Bearer <JWT>`; the user is the token's `sub`.
    case jwt
    /// A header set by a trusted proxy (`identity.proxy`).
    case proxy
}
