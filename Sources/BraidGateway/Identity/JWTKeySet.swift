import BraidContracts
import BraidCore
import BraidObservability
import Foundation
import JWTKit
import Logging
import Metrics

/// The keys users' tokens are verified with: an HS256 key shared with the issuer, and the
/// issuer's RS256 / ES256 public keys from a JWKS document (`identity.jwt.jwks_url` or
/// `jwks_file`), fetched at start and again every `jwks_refresh_seconds` (``JWKSRefresher``).
///
/// Each token is verified with exactly one key, chosen by Braid, never by jwt-kit's fallback:
/// - RS256 and ES256 tokens name their key with `kid`. A `kid` the set lacks (the issuer
///   rotated its keys) triggers one early fetch, at most every 30 s; if it is still unknown the
///   token is refused. A token without a `kid` is accepted only while the set holds exactly one
///   key for its algorithm.
/// - The header's `alg` must fit the key: RS256 an RSA key, ES256 an EC key on P-256, and the
///   key's own `alg`, when the JWKS gives one, must be the same. A key marked for another use
///   than signatures (`use`) is left out of the set.
///
/// While the JWKS cannot be fetched, the last set that could be keeps verifying tokens for up
/// to `jwks_max_stale_seconds` after it was fetched; after that, or before any fetch has
/// succeeded, a token that needs it is answered with a 503 (`identity_unavailable`), never
/// accepted unverified.
public actor JWTKeySet: RedactedDescription {
    public typealias Fetch = @Sendable () async throws -> Data

    /// One published key, ready to verify with.
    struct PublishedKey: Sendable {
        let algorithm: String
        let verifier: JWTKeyCollection
    }

    let fetch: Fetch?
    let hs256Key: Secret?
    let maxStale: Duration
    let refetchInterval: Duration
    let logger: Logger
    private var hs256: JWTKeyCollection?
    /// By `kid`; keys without one cannot be chosen and are left out.
    private var published: [String: PublishedKey] = [:]
    private var fetchedAt: ContinuousClock.Instant?
    private var lastAttempt: ContinuousClock.Instant?

    /// `fetch` returns the JWKS document (nil: no RS256 / ES256 keys); `hs256Key` nil or empty: no HS256.
    public init(fetch: Fetch?, hs256Key: Secret?, maxStale: Duration, refetchInterval: Duration = .seconds(30), logger: Logger) {
        self.fetch = fetch
        self.hs256Key = hs256Key.flatMap { $0.isEmpty ? nil : $0 }
        self.maxStale = maxStale
        self.refetchInterval = refetchInterval
        self.logger = logger
    }

    /// Algorithms a token may name: HS256 only with a shared key, RS256 and ES256 only with a JWKS.
    nonisolated var algorithms: Set<String> {
        Set(hs256Key == nil ? [] : ["HS256"]).union(fetch == nil ? [] : ["RS256", "ES256"])
    }

    /// Fetches and installs the JWKS; false (the previous set stays) when it cannot.
    @discardableResult
    public func refresh() async -> Bool {
        guard let fetch else { return true }
        lastAttempt = .now
        do {
            let document = try JSONDecoder().decode(RawJWKS.self, from: try await fetch())
            var keys: [String: PublishedKey] = [:]
            for raw in document.keys {
                guard let (kid, algorithm) = Self.signatureKey(raw), keys[kid] == nil else { continue }
                let collection = JWTKeyCollection()
                try await collection.add(jwk: raw.jwk, isDefault: true)
                keys[kid] = PublishedKey(algorithm: algorithm, verifier: collection)
            }
            guard !keys.isEmpty else { throw JWKSError(message: "the JWKS holds no RSA or P-256 EC signing key with a kid") }
            published = keys
            fetchedAt = .now
            Counter(.gatewayJwksRefreshes, dimensions: [("result", "ok")]).increment()
            return true
        } catch {
            Counter(.gatewayJwksRefreshes, dimensions: [("result", "failed")]).increment()
            let age = fetchedAt.map { "\($0.duration(to: .now))" } ?? "never fetched"
            logger.warning("JWKS fetch failed; keeping the previous keys", metadata: ["error": "\(error)", "keys_age": "\(age)"])
            return false
        }
    }

    /// The `kid` and the one algorithm a published key verifies, or nil for a key Braid does
    /// not use (no `kid`, another key type or curve, not for signatures, a symmetric key,
    /// which has no place in a published set).
    static func signatureKey(_ raw: RawJWK) -> (kid: String, algorithm: String)? {
        guard let kid = raw.kid, !kid.isEmpty, raw.use == nil || raw.use == "sig" else { return nil }
        let algorithm: String
        if raw.jwk.keyType == .rsa {
            algorithm = "RS256"
        } else if raw.jwk.keyType == .ecdsa, raw.jwk.curve?.rawValue == ECDSACurve.p256.rawValue {
            algorithm = "ES256"
        } else {
            return nil
        }
        if let declared = raw.jwk.algorithm, declared.rawValue != algorithm { return nil }
        return (kid, algorithm)
    }

    /// Verifies `token`'s signature with the one key its header names (``TokenHeader``).
    func verify(_ token: String, header: TokenHeader) async throws -> UserClaims {
        switch header.alg {
        case "HS256":
            return try await hmacCollection().verify(token, as: UserClaims.self)
        default:
            if let kid = header.kid, published[kid] == nil, lastAttempt.map({ $0.duration(to: .now) >= refetchInterval }) ?? true {
                await refresh()
            }
            guard let fetchedAt, fetchedAt.duration(to: .now) <= maxStale else {
                throw GatewayError.unavailable("the identity provider's keys are unavailable; try again later", code: "identity_unavailable")
            }
            let key: PublishedKey
            if let kid = header.kid {
                guard let named = published[kid] else { throw JWTVerifier.rejected("kid", "the token names a key (kid) the issuer does not publish") }
                key = named
            } else {
                let candidates = published.values.filter { $0.algorithm == header.alg }
                guard candidates.count == 1, let only = candidates.first else {
                    throw JWTVerifier.rejected("kid", "the token names no key (kid), and the issuer publishes several")
                }
                key = only
            }
            guard key.algorithm == header.alg else {
                throw JWTVerifier.rejected("alg", "the token's algorithm does not fit the key it names")
            }
            return try await key.verifier.verify(token, as: UserClaims.self)
        }
    }

    private func hmacCollection() async throws -> JWTKeyCollection {
        if let hs256 { return hs256 }
        guard let hs256Key else { throw JWKSError(message: "no HS256 key") }
        let collection = JWTKeyCollection()
        await collection.add(hmac: HMACKey(from: hs256Key.bytes), digestAlgorithm: .sha256)
        hs256 = collection
        return collection
    }
}

/// A JWKS document whose keys keep the members jwt-kit's `JWK` drops (`use`), each decoded on
/// its own: one key of an unknown type or algorithm leaves the others usable.
struct RawJWKS: Decodable {
    var keys: [RawJWK]

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var list = try container.nestedUnkeyedContainer(forKey: .keys)
        var keys: [RawJWK] = []
        while !list.isAtEnd {
            if let key = try? list.decode(RawJWK.self) {
                keys.append(key)
            } else {
                _ = try list.decode(Skipped.self)
            }
        }
        self.keys = keys
    }

    enum CodingKeys: String, CodingKey { case keys }
    private struct Skipped: Decodable {}
}

struct RawJWK: Decodable {
    var jwk: JWK
    var kid: String?
    var use: String?

    init(from decoder: any Decoder) throws {
        jwk = try JWK(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kid = try container.decodeIfPresent(String.self, forKey: .kid)
        use = try container.decodeIfPresent(String.self, forKey: .use)
    }

    enum CodingKeys: String, CodingKey { case kid, use }
}

struct JWKSError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
