import BraidTestSupport
@testable import BraidGateway
import Foundation
import Logging
import Synchronization
import Testing

/// Verifying users' tokens: each algorithm, and each way a token can be wrong (signature,
/// issuer, audience, expiry with leeway, `alg: none`, an algorithm without a key), plus what
/// happens while the JWKS cannot be fetched.
@Suite("JWT verification")
struct JWTVerifierTests {
    static func verifier(_ issuer: TestTokenIssuer, jwks: @escaping JWTKeySet.Fetch, maxStale: Duration = .seconds(3600), hs256: Bool = true) -> JWTVerifier {
        let keys = JWTKeySet(fetch: jwks, hs256Key: hs256 ? issuer.hs256Key : nil, maxStale: maxStale, refetchInterval: .zero, logger: Logger(label: "test"))
        return JWTVerifier(issuer: issuer.issuer, audience: issuer.audience, leeway: .seconds(60), keys: keys)
    }

    static func code(_ verifier: JWTVerifier, _ token: String?) async -> String? {
        do {
            _ = try await verifier.user(authorization: token.map { "Bearer \($0)" })
            return nil
        } catch {
            return error.description.split(separator: ":").first.map(String.init)
        }
    }

    @Test func everyAlgorithmWithAKeyVerifiesAndNamesTheUser() async throws {
        let issuer = try await TestTokenIssuer()
        let verifier = Self.verifier(issuer, jwks: { issuer.jwks })
        for algorithm in TestTokenIssuer.Algorithm.allCases {
            let token = try await issuer.token(for: "u-\(algorithm.rawValue)", algorithm: algorithm)
            #expect(try await verifier.user(authorization: "Bearer \(token)") == "u-\(algorithm.rawValue)", "\(algorithm)")
        }
        // Without the HS256 key, HS256 tokens are refused before any key is tried.
        let noSecret = Self.verifier(issuer, jwks: { issuer.jwks }, hs256: false)
        #expect(await Self.code(noSecret, try await issuer.token(for: "u1", algorithm: .hs256)) == "401 invalid_token")
    }

    @Test func wrongTokensAreRefusedWithA401() async throws {
        let issuer = try await TestTokenIssuer()
        let verifier = Self.verifier(issuer, jwks: { issuer.jwks })
        let mine = try await issuer.token(for: "u1")
        let theirs = try await issuer.token(for: "u2")
        let cases: [(String, String?)] = [
            ("no credential", nil),
            ("another user's claims under my signature", TestTokenIssuer.spliced(mine, payloadOf: theirs)),
            ("expired beyond the leeway", try await issuer.token(for: "u1", expiresIn: -120)),
            ("another audience", try await issuer.token(for: "u1", audience: "another-service")),
            ("another issuer", try await issuer.token(for: "u1", issuer: "https://evil.example/")),
            ("not valid yet", try await issuer.token(for: "u1", notBefore: Date().addingTimeInterval(600))),
            ("alg none", issuer.unsigned(for: "u1")),
            ("not a JWT", "abc.def"),
        ]
        for (name, token) in cases {
            let code = await Self.code(verifier, token)
            #expect(code == (token == nil ? "401 unauthenticated" : "401 invalid_token"), "\(name): \(String(describing: code))")
        }
        // Within the leeway an expired token still passes (clock skew).
        #expect(await Self.code(verifier, try await issuer.token(for: "u1", expiresIn: -30)) == nil)
        // A token signed by another issuer's keys under the same kid.
        let stranger = try await TestTokenIssuer()
        #expect(await Self.code(verifier, try await stranger.token(for: "u1", algorithm: .rs256)) == "401 invalid_token")
    }

    /// The JWKS endpoint down: the last keys fetched keep working until they are too old;
    /// before any fetch, and after, tokens get a 503, never a pass.
    @Test func whileTheJWKSCannotBeFetched() async throws {
        let issuer = try await TestTokenIssuer()
        let up = Mutex(false)
        let fetch: JWTKeySet.Fetch = {
            guard up.withLock({ $0 }) else { throw CancellationError() }
            return issuer.jwks
        }
        let verifier = Self.verifier(issuer, jwks: fetch, maxStale: .milliseconds(400))
        let token = try await issuer.token(for: "u1")
        #expect(await Self.code(verifier, token) == "503 identity_unavailable", "never fetched")
        up.withLock { $0 = true }
        #expect(await verifier.keys.refresh())
        #expect(await Self.code(verifier, token) == nil)
        up.withLock { $0 = false }
        #expect(!(await verifier.keys.refresh()))
        #expect(await Self.code(verifier, token) == nil, "the last keys stay in use")
        try await Task.sleep(for: .milliseconds(500))
        #expect(await Self.code(verifier, token) == "503 identity_unavailable", "too old to trust")
        // An HS256 token needs no JWKS.
        #expect(await Self.code(verifier, try await issuer.token(for: "u1", algorithm: .hs256)) == nil)
    }
}
