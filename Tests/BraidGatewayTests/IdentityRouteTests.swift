import BraidConfig
import BraidCore
@testable import BraidGateway
import BraidTestSupport
import BraidWiring
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Personalised routes take the user from a verified credential: without one, with a wrong
/// one, or naming another user they refuse; an administrator may name any user.
@Suite("Identity on personalised routes", .serialized, .integration)
struct IdentityRouteTests {
    static func strong() -> String { Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString() }

    static func jwtConfiguration(_ fixture: WorkerFixture, _ issuer: TestTokenIssuer) throws -> BraidConfiguration {
        let jwks = FileManager.default.temporaryDirectory.appendingPathComponent("braid-jwks-\(UUID().uuidString).json")
        try issuer.jwks.write(to: jwks)
        var configuration = GatewayHarness.configuration(fixture)
        configuration.identity.mode = .jwt
        configuration.identity.jwt.issuer = issuer.issuer
        configuration.identity.jwt.audience = issuer.audience
        configuration.identity.jwt.jwksFile = jwks.path
        configuration.identity.jwt.hs256Key = Secret(issuer.hs256Key)
        configuration.admin.token = Secret(strong())
        return configuration
    }

    static func status(_ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, token: String?, body: String? = nil) async throws -> Int {
        var headers: HTTPFields = [:]
        if let token { headers[.authorization] = "Bearer \(token)" }
        let response = try await client.execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
        return Int(response.status.code)
    }

    @Test("JWT: every personalised route needs a valid token for its own user")
    func jwt() async throws {
        let fixture = try await WorkerFixture(partitions: 2, documents: 200, users: 5)
        let issuer = try await TestTokenIssuer()
        let configuration = try Self.jwtConfiguration(fixture, issuer)
        let adminToken = configuration.admin.token.text
        try await GatewayHarness.with(configuration) { client, _ in
            let mine = try await issuer.token(for: "u00001")
            let routes: [(HTTPRequest.Method, String, String?)] = [
                (.get, "/v1/feeds/home", nil), (.get, "/v1/feeds/home/components/my-week", nil),
                (.post, "/v1/feeds/home/components:batchGet", #"{"components":["my-week"]}"#),
            ]
            let wrong: [(String, String?)] = [
                ("none", nil),
                ("bad signature", TestTokenIssuer.spliced(mine, payloadOf: try await issuer.token(for: "u00002"))),
                ("expired", try await issuer.token(for: "u00001", expiresIn: -3_600)),
                ("wrong audience", try await issuer.token(for: "u00001", audience: "someone-else")),
            ]
            for (method, uri, body) in routes {
                #expect(try await Self.status(client, method, uri, token: mine, body: body) == 200, "\(uri)")
                for (name, token) in wrong {
                    #expect(try await Self.status(client, method, uri, token: token, body: body) == 401, "\(uri): \(name)")
                }
            }
            // The refusals are JSON errors of the documented shape.
            let unauthenticated = try await client.execute(uri: "/v1/feeds/home", method: .get)
            let forbidden = try await client.execute(uri: "/v1/feeds/home?user=u00002", method: .get, headers: [.authorization: "Bearer \(mine)"])
            #expect(unauthenticated.headers[.wwwAuthenticate] == "Bearer")
            let verdicts = try OpenAPIValidator.validate([
                (Data(String(buffer: unauthenticated.body).utf8), .response(path: "/v1/feeds/{feed}", method: "GET", status: 401)),
                (Data(String(buffer: forbidden.body).utf8), .response(path: "/v1/feeds/{feed}", method: "GET", status: 403)),
            ])
            #expect(verdicts.allSatisfy { $0 == nil }, "\(verdicts)")
            // Naming the authenticated user is fine; naming another is a 403, whatever the route.
            #expect(try await Self.status(client, .get, "/v1/feeds/home?user=u00001", token: mine) == 200)
            #expect(try await Self.status(client, .get, "/v1/feeds/home?user=u00002", token: mine) == 403)
            #expect(try await Self.status(client, .get, "/v1/feeds/home/components/my-week?user=u00002", token: mine) == 403)
            #expect(try await Self.status(client, .post, "/v1/feeds/home/components:batchGet", token: mine, body: #"{"user":"u00002","components":["my-week"]}"#) == 403)
            // The layout is the token's user's, and its content URLs carry no user=.
            let layout = try JSONBody(try await client.execute(uri: "/v1/feeds/home", method: .get, headers: [.authorization: "Bearer \(mine)"]))
            #expect(layout["user"] as? String == "u00001")
            let urls = (layout["components"] as? [[String: Any]] ?? []).compactMap { $0["content_url"] as? String }
            #expect(!urls.isEmpty && urls.allSatisfy { !$0.contains("user=") }, "\(urls)")
            // Every algorithm the issuer signs with.
            for algorithm in TestTokenIssuer.Algorithm.allCases {
                #expect(try await Self.status(client, .get, "/v1/feeds/home", token: try await issuer.token(for: "u3", algorithm: algorithm)) == 200)
            }
            // An administrator (the console's feed preview) names any user.
            #expect(try await Self.status(client, .get, "/v1/feeds/home?user=u00002", token: adminToken) == 200)
            #expect(try await Self.status(client, .get, "/v1/feeds/home", token: adminToken) == 400, "an admin must name the user")
            // Public routes need no identity.
            #expect(try await Self.status(client, .get, "/v1/search?q=curry", token: nil) == 200)
        }
    }

    @Test("Proxy: the user header counts only with the proxy's secret")
    func proxy() async throws {
        let fixture = try await WorkerFixture(partitions: 2, documents: 200, users: 5)
        var configuration = GatewayHarness.configuration(fixture)
        configuration.identity.mode = .proxy
        configuration.identity.proxy.secret = Secret(Self.strong())
        let secret = configuration.identity.proxy.secret.text
        try await GatewayHarness.with(configuration) { client, _ in
            func status(_ pairs: [(String, String)], _ uri: String = "/v1/feeds/home") async throws -> Int {
                var headers = HTTPFields()
                for (name, value) in pairs { headers[.init(name)!] = value }
                return Int(try await client.execute(uri: uri, method: .get, headers: headers).status.code)
            }
            let (user, proof) = ("X-Braid-User", "X-Braid-Proxy-Secret")
            let cases: [([(String, String)], String, Int, String)] = [
                ([(user, "u00001"), (proof, secret)], "/v1/feeds/home", 200, "the proxy's user"),
                ([(user, "u00001")], "/v1/feeds/home", 401, "a client cannot set the header itself"),
                ([(user, "u00001"), (proof, Self.strong())], "/v1/feeds/home", 401, "a wrong secret"),
                ([(proof, secret)], "/v1/feeds/home", 401, "no user"),
                ([(user, "u00001"), (proof, secret)], "/v1/feeds/home?user=u00002", 403, "another user"),
                ([], "/v1/feeds/home?user=u00002", 401, "user= alone names nobody"),
            ]
            for (headers, uri, expected, name) in cases {
                let got = try await status(headers, uri)
                #expect(got == expected, "\(name)")
            }
        }
    }
}
