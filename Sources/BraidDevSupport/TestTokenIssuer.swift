import Crypto
import CryptoExtras
import Foundation
import JWTKit

/// An identity provider of the test's own: it signs users' JWTs with an ES256 key, an RS256
/// key and an HS256 secret, and publishes the two public keys as a JWKS document, so the
/// gateway verifies tokens exactly as it would a real issuer's.
public struct TestTokenIssuer: Sendable {
    public enum Algorithm: String, Sendable, CaseIterable {
        case es256 = "ES256", rs256 = "RS256", hs256 = "HS256"

        var kid: String {
            switch self {
            case .es256: "braid-test-es"
            case .rs256: "braid-test-rs"
            case .hs256: "braid-test-hs"
            }
        }
    }

    public let issuer: String
    public let audience: String
    /// The HS256 secret (base64, 32 random bytes): `identity.jwt.hs256_key`.
    public let hs256Key: String
    /// The JWKS document of the ES256 and RS256 public keys.
    public let jwks: Data
    private let keys: JWTKeyCollection
    private let p256: P256.Signing.PrivateKey
    private let rsaKey: _RSA.Signing.PrivateKey

    /// Makes fresh keys (a 2048-bit RSA key takes a moment).
    public init(issuer: String = "https://issuer.braid.test/", audience: String = "braid-gateway") async throws {
        self.issuer = issuer
        self.audience = audience
        let secret = (0..<32).map { _ in UInt8.random(in: 0...255) }
        hs256Key = Data(secret).base64EncodedString()
        p256 = P256.Signing.PrivateKey()
        rsaKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let ecdsa = try ES256PrivateKey(backing: p256)
        let rsa = try Insecure.RSA.PrivateKey(backing: rsaKey)
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: ecdsa, kid: JWKIdentifier(string: Algorithm.es256.kid))
        await keys.add(rsa: rsa, digestAlgorithm: .sha256, kid: JWKIdentifier(string: Algorithm.rs256.kid))
        // The gateway is given the secret as text and uses its UTF-8 bytes, as it does every key.
        await keys.add(hmac: HMACKey(from: Array(hs256Key.utf8)), digestAlgorithm: .sha256, kid: JWKIdentifier(string: Algorithm.hs256.kid))
        self.keys = keys
        guard let point = ecdsa.publicKey.parameters else { throw IssuerError(message: "no EC parameters") }
        let (modulus, exponent) = try rsa.publicKey.getKeyPrimitives()
        let document: [String: Any] = [
            "keys": [
                ["kty": "EC", "crv": "P-256", "alg": "ES256", "use": "sig", "kid": Algorithm.es256.kid, "x": point.x, "y": point.y],
                ["kty": "RSA", "alg": "RS256", "use": "sig", "kid": Algorithm.rs256.kid, "n": Self.base64URL(modulus), "e": Self.base64URL(exponent)],
            ]
        ]
        jwks = try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])
    }

    /// A token for `user`; every claim can be set wrong on purpose.
    public func token(
        for user: String, algorithm: Algorithm = .es256, issuer: String? = nil, audience: String? = nil, expiresIn: TimeInterval = 300,
        notBefore: Date? = nil, now: Date = Date()
    ) async throws -> String {
        let claims = Claims(
            sub: SubjectClaim(value: user), iss: IssuerClaim(value: issuer ?? self.issuer), aud: AudienceClaim(value: [audience ?? self.audience]),
            exp: ExpirationClaim(value: now.addingTimeInterval(expiresIn)), nbf: notBefore.map { NotBeforeClaim(value: $0) })
        return try await keys.sign(claims, kid: JWKIdentifier(string: algorithm.kid))
    }

    /// A token of exactly this header and payload JSON text (repeated names, odd members and
    /// all), with a valid signature by the key of `key`, whatever the header says.
    public func signed(header: String, payload: String, with key: Algorithm) throws -> String {
        let input = Self.base64URL(Data(header.utf8)) + "." + Self.base64URL(Data(payload.utf8))
        let signature: Data
        switch key {
        case .hs256:
            signature = Data(HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: SymmetricKey(data: Array(hs256Key.utf8))))
        case .es256:
            signature = try p256.signature(for: Data(input.utf8)).rawRepresentation
        case .rs256:
            signature = try rsaKey.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5).rawRepresentation
        }
        return input + "." + Self.base64URL(signature)
    }

    /// Valid claims for `user` as JSON text, with `extra` members appended verbatim (for
    /// example `,"sub":"someone-else"`).
    public func claimsJSON(for user: String, extra: String = "", now: Date = Date()) -> String {
        #"{"sub":"\#(user)","iss":"\#(issuer)","aud":["\#(audience)"],"exp":\#(Int(now.timeIntervalSince1970) + 300)\#(extra)}"#
    }

    /// The `kid` the issuer publishes (or uses, for HS256) for `algorithm`.
    public static func kid(of algorithm: Algorithm) -> String { algorithm.kid }

    /// `token` with its payload replaced by `other`'s: a valid signature over other claims.
    public static func spliced(_ token: String, payloadOf other: String) -> String {
        let parts = token.split(separator: ".")
        let otherParts = other.split(separator: ".")
        return [parts[0], otherParts[1], parts[2]].joined(separator: ".")
    }

    /// An unsigned token (`alg: none`) for `user`.
    public func unsigned(for user: String, now: Date = Date()) -> String {
        let header = Self.base64URL(Data(#"{"alg":"none","typ":"JWT"}"#.utf8))
        let payload = Self.base64URL(
            Data(#"{"sub":"\#(user)","iss":"\#(issuer)","aud":"\#(audience)","exp":\#(Int(now.timeIntervalSince1970) + 300)}"#.utf8))
        return "\(header).\(payload)."
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    struct Claims: JWTPayload {
        var sub: SubjectClaim
        var iss: IssuerClaim
        var aud: AudienceClaim
        var exp: ExpirationClaim
        var nbf: NotBeforeClaim?

        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    struct IssuerError: Error {
        let message: String
    }
}
