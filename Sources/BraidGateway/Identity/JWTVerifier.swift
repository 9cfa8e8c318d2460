import BraidContracts
import BraidObservability
import Foundation
import Hummingbird
import JWTKit
import Metrics

/// Verifies a user's `Authorization: Bearer <JWT>` (`identity.jwt`): a header and claims that
/// name no member twice and no critical extension (``TokenHeader``), an algorithm the gateway
/// has keys for (HS256, RS256, ES256; `none` and everything else refused before any key is
/// touched), a valid signature by the one key the header names and whose type fits the
/// algorithm (``JWTKeySet``), the configured issuer, the configured audience among `aud`, an
/// `exp` not past (and an `nbf` not ahead) by more than the leeway, and a `sub`, which is the user.
///
/// Each failure is a 401 that says what is wrong with the token, never which key or what the
/// issuer's document held.
public struct JWTVerifier: Sendable {
    public let issuer: String
    public let audience: String
    public let leeway: Duration
    public let keys: JWTKeySet

    public init(issuer: String, audience: String, leeway: Duration, keys: JWTKeySet) {
        self.issuer = issuer
        self.audience = audience
        self.leeway = leeway
        self.keys = keys
    }

    func user(authorization: String?, now: Date = Date()) async throws(GatewayError) -> String {
        guard let authorization, authorization.count > 7, authorization.prefix(7).lowercased() == "bearer " else {
            throw .unauthenticated("this route needs an authenticated user: send Authorization: Bearer <token>")
        }
        let token = authorization.dropFirst(7).trimmingCharacters(in: .whitespaces)
        let header = try TokenHeader.read(token)
        guard keys.algorithms.contains(header.alg) else {
            throw Self.rejected("alg", "the token's algorithm is not accepted")
        }
        let claims: UserClaims
        do {
            claims = try await keys.verify(token, header: header)
        } catch let error as GatewayError {
            throw error
        } catch {
            throw Self.rejected("signature", "the token's signature does not verify")
        }
        let skew = leeway / .seconds(1)
        guard claims.iss?.value == issuer else { throw Self.rejected("issuer", "the token is from another issuer") }
        guard claims.aud?.value.contains(audience) == true else { throw Self.rejected("audience", "the token is for another audience") }
        guard let expiry = claims.exp?.value else { throw Self.rejected("expiry", "the token has no expiry (exp)") }
        guard now.timeIntervalSince(expiry) <= skew else { throw Self.rejected("expiry", "the token has expired") }
        if let notBefore = claims.nbf?.value, notBefore.timeIntervalSince(now) > skew {
            throw Self.rejected("not_before", "the token is not valid yet")
        }
        guard let subject = claims.sub?.value, !subject.isEmpty else { throw Self.rejected("subject", "the token names no user (sub)") }
        return subject
    }

    static func rejected(_ reason: String, _ message: String) -> GatewayError {
        Counter(.gatewayTokenRejections, dimensions: [("reason", reason)]).increment()
        return GatewayError(.unauthorized, code: "invalid_token", message, headers: [.wwwAuthenticate: "Bearer error=\"invalid_token\""])
    }
}
