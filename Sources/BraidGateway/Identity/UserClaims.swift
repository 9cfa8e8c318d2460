import JWTKit

/// The claims of a user's token that the gateway reads. jwt-kit verifies the signature; the
/// claims are checked by ``JWTVerifier`` against the configuration (issuer, audience,
/// expiry and not-before with leeway), so this type checks nothing itself.
struct UserClaims: JWTPayload {
    var sub: SubjectClaim?
    var iss: IssuerClaim?
    var aud: AudienceClaim?
    var exp: ExpirationClaim?
    var nbf: NotBeforeClaim?

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
