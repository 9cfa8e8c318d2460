import Foundation
import JWTKit
import Logging
import Metrics

/// The keys users' tokens are verified with: an HS256 key shared with the issuer, and the
/// issuer's RS256 / ES256 public keys from a JWKS document (`identity.jwt.jwks_url` or
/// `jwks_file`), fetched at start and again every `jwks_refresh_seconds` (``JWKSRefresher``).
///
/// While the JWKS cannot be fetched, the last set that could be keeps verifying tokens for up
/// to `jwks_max_stale_seconds` after it was fetched; after that, or before any fetch has
/// succeeded, a token that needs it is answered with a 503 (`identity_unavailable`), never
/// accepted unverified. A token naming a `kid` the set lacks (the issuer rotated its keys)
/// triggers one early fetch, at most every 30 s.
public actor JWTKeySet {
    public typealias Fetch = @Sendable () async throws -> Data

    let fetch: Fetch?
    let hs256Key: [UInt8]?
    let maxStale: Duration
    let refetchInterval: Duration
    let logger: Logger
    private var hs256: JWTKeyCollection?
    private var published: JWTKeyCollection?
    private var kids: Set<String> = []
    private var fetchedAt: ContinuousClock.Instant?
    private var lastAttempt: ContinuousClock.Instant?

    /// `fetch` returns the JWKS document (nil: no RS256 / ES256 keys); `hs256Key` nil or empty: no HS256.
    public init(fetch: Fetch?, hs256Key: String?, maxStale: Duration, refetchInterval: Duration = .seconds(30), logger: Logger) {
        self.fetch = fetch
        self.hs256Key = hs256Key.flatMap { $0.isEmpty ? nil : Array($0.utf8) }
        self.maxStale = maxStale
        self.refetchInterval = refetchInterval
        self.logger = logger
    }

    /// Algorithms a token may name: HS256 only with a shared key, RS256 and ES256 only with a JWKS.
    var algorithms: Set<String> {
        Set(hs256Key == nil ? [] : ["HS256"]).union(fetch == nil ? [] : ["RS256", "ES256"])
    }

    /// Fetches and installs the JWKS; false (the previous set stays) when it cannot.
    @discardableResult
    public func refresh() async -> Bool {
        guard let fetch else { return true }
        lastAttempt = .now
        do {
            let document = try JSONDecoder().decode(JWKS.self, from: try await fetch())
            // Public keys of the two asymmetric algorithms only: a symmetric key has no place
            // in a published set, and no other algorithm is accepted.
            let usable = document.keys.filter { $0.keyType == .rsa || $0.keyType == .ecdsa }
            guard !usable.isEmpty else { throw JWKSError(message: "the JWKS holds no RSA or EC key") }
            let collection = JWTKeyCollection()
            try await collection.add(jwks: JWKS(keys: usable))
            published = collection
            kids = Set(usable.compactMap { $0.keyIdentifier?.string })
            fetchedAt = .now
            Counter(label: "braid_gateway_jwks_refreshes_total", dimensions: [("result", "ok")]).increment()
            return true
        } catch {
            Counter(label: "braid_gateway_jwks_refreshes_total", dimensions: [("result", "failed")]).increment()
            let age = fetchedAt.map { "\($0.duration(to: .now))" } ?? "never fetched"
            logger.warning("JWKS fetch failed; keeping the previous keys", metadata: ["error": "\(error)", "keys_age": "\(age)"])
            return false
        }
    }

    /// Verifies `token`'s signature with the key its header names (``TokenHeader``).
    func verify(_ token: String, header: TokenHeader) async throws -> UserClaims {
        switch header.alg {
        case "HS256":
            return try await hmacCollection().verify(token, as: UserClaims.self)
        default:
            if let kid = header.kid, !kids.contains(kid), lastAttempt.map({ $0.duration(to: .now) >= refetchInterval }) ?? true {
                await refresh()
            }
            guard let published, let fetchedAt, fetchedAt.duration(to: .now) <= maxStale else {
                throw GatewayError.unavailable("the identity provider's keys are unavailable; try again later", code: "identity_unavailable")
            }
            return try await published.verify(token, as: UserClaims.self)
        }
    }

    private func hmacCollection() async throws -> JWTKeyCollection {
        if let hs256 { return hs256 }
        guard let hs256Key else { throw JWKSError(message: "no HS256 key") }
        let collection = JWTKeyCollection()
        await collection.add(hmac: HMACKey(from: hs256Key), digestAlgorithm: .sha256)
        hs256 = collection
        return collection
    }
}

struct JWKSError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
