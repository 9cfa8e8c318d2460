import BraidCore
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
        let keys = JWTKeySet(
            fetch: jwks, hs256Key: hs256 ? Secret(issuer.hs256Key) : nil, maxStale: maxStale, refetchInterval: .zero, logger: Logger(label: "test"))
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

    /// A header or payload naming a member twice is refused, whichever value comes first:
    /// readers disagree on which one counts (jwt-kit's took the first, most issuers the last).
    @Test func aTokenRepeatingAHeaderOrClaimNameIsRefused() async throws {
        let issuer = try await TestTokenIssuer()
        let verifier = Self.verifier(issuer, jwks: { issuer.jwks })
        let header = #"{"alg":"HS256","typ":"JWT"}"#
        let genuine = try issuer.signed(header: header, payload: issuer.claimsJSON(for: "u00001"), with: .hs256)
        #expect(try await verifier.user(authorization: "Bearer \(genuine)") == "u00001", "the same token without repetition passes")
        let past = Int(Date().timeIntervalSince1970) - 3_600
        let cases: [(String, String, String)] = [
            ("sub twice", header, issuer.claimsJSON(for: "u00001", extra: #","sub":"u00002""#)),
            ("iss twice", header, issuer.claimsJSON(for: "u00001", extra: #","iss":"https://evil.example/""#)),
            ("exp twice", header, issuer.claimsJSON(for: "u00001", extra: #","exp":\#(past)"#)),
            ("typ twice in the header", #"{"alg":"HS256","typ":"JWT","typ":"at+jwt"}"#, issuer.claimsJSON(for: "u00001")),
            ("alg twice in the header", #"{"alg":"HS256","alg":"HS256"}"#, issuer.claimsJSON(for: "u00001")),
        ]
        for (name, header, payload) in cases {
            let token = try issuer.signed(header: header, payload: payload, with: .hs256)
            #expect(await Self.code(verifier, token) == "401 invalid_token", "\(name)")
        }
    }

    /// Braid picks the one key a token is verified with: the `kid` must be published (after the
    /// one refetch), `alg` must fit that key, and unknown critical extensions are refused.
    @Test func aTokenIsVerifiedOnlyWithThePublishedKeyItNamesAndWhoseTypeFitsItsAlgorithm() async throws {
        let issuer = try await TestTokenIssuer()
        let fetches = Mutex(0)
        let verifier = Self.verifier(issuer, jwks: {
            fetches.withLock { $0 += 1 }
            return issuer.jwks
        })
        #expect(await verifier.keys.refresh())
        let claims = issuer.claimsJSON(for: "u00001")
        let es = TestTokenIssuer.kid(of: .es256)
        let rs = TestTokenIssuer.kid(of: .rs256)
        func token(_ header: String, _ key: TestTokenIssuer.Algorithm) throws -> String {
            try issuer.signed(header: header, payload: claims, with: key)
        }
        #expect(await Self.code(verifier, try token(#"{"alg":"RS256","kid":"\#(rs)"}"#, .rs256)) == nil)
        #expect(await Self.code(verifier, try token(#"{"alg":"ES256","kid":"\#(es)"}"#, .es256)) == nil)
        // One RSA key and one EC key are published: without a kid each algorithm has one key.
        #expect(await Self.code(verifier, try token(#"{"alg":"RS256"}"#, .rs256)) == nil)

        let before = fetches.withLock { $0 }
        let refused: [(String, String)] = [
            ("an unknown kid", try token(#"{"alg":"RS256","kid":"nope"}"#, .rs256)),
            ("a kid that is a path", try token(#"{"alg":"RS256","kid":"../../etc/passwd"}"#, .rs256)),
            ("RS256 naming the EC key, signed by it", try token(#"{"alg":"RS256","kid":"\#(es)"}"#, .es256)),
            ("ES256 naming the RSA key, signed by it", try token(#"{"alg":"ES256","kid":"\#(rs)"}"#, .rs256)),
            ("RS256 with no kid, signed by the EC key", try token(#"{"alg":"RS256"}"#, .es256)),
            ("an unknown critical extension", try token(#"{"alg":"ES256","kid":"\#(es)","crit":["exp"],"exp":1}"#, .es256)),
            ("a kid that is not a string", try token(#"{"alg":"ES256","kid":7}"#, .es256)),
        ]
        for (name, token) in refused {
            #expect(await Self.code(verifier, token) == "401 invalid_token", "\(name)")
        }
        #expect(fetches.withLock { $0 } > before, "an unknown kid triggers a refetch before it is refused")
    }
}
