import BraidConfig
import BraidCore
@testable import BraidGateway
import BraidTestSupport
import BraidWiring
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// The admin surface (`/metrics`, `/v1/experiments/*`, `/v1/admin/*`, the console) behind the
/// admin token or on a listener of its own; headers every response carries; CORS.
@Suite("Admin surface, security headers and CORS", .serialized, .integration)
struct AdminSurfaceTests {
    static let adminPaths = ["/metrics", "/v1/experiments/draft", "/v1/admin/console", "/console"]

    @Test("On the public listener the admin routes need the admin or console token")
    func sharedListenerNeedsATokenForAdminRoutes() async throws {
        let fixture = try await WorkerFixture(partitions: 2, documents: 100, users: 5)
        var configuration = GatewayHarness.configuration(fixture)
        configuration.admin.token = Secret(IdentityRouteTests.strong())
        configuration.console.token = Secret(IdentityRouteTests.strong())
        let (adminToken, consoleToken) = (configuration.admin.token.text, configuration.console.token.text)
        try await GatewayHarness.with(configuration) { client, _ in
            for path in Self.adminPaths {
                let refused = try await client.get(path)
                #expect(refused.status == .unauthorized, "\(path)")
                #expect(refused.headers[.wwwAuthenticate] == "Bearer", "\(path)")
                #expect(try await client.get(path, headers: [.authorization: "Bearer \(IdentityRouteTests.strong())"]).status == .unauthorized)
                #expect(try await client.get(path, headers: [.authorization: "Bearer \(adminToken)"]).status == .ok, "\(path)")
                #expect(try await client.get(path, headers: [.authorization: "Bearer \(consoleToken)"]).status == .ok, "\(path)")
            }
            #expect(try await client.get("/v1/search?q=curry").status == .ok, "public routes need no token")
            #expect(try await client.get("/readyz").status == .ok)
        }
    }

    @Test("With an admin listener the public one serves none of the admin routes")
    func separateAdminListener() async throws {
        let fixture = try await WorkerFixture(partitions: 2, documents: 100, users: 5)
        var configuration = GatewayHarness.configuration(fixture)
        configuration.gateway.adminHost = "127.0.0.1"
        configuration.gateway.adminPort = 0
        configuration.admin.token = Secret(IdentityRouteTests.strong())
        let adminToken = configuration.admin.token.text
        try await GatewayHarness.with(configuration) { client, gateway in
            for path in Self.adminPaths {
                let response = try await client.get(path, headers: [.authorization: "Bearer \(adminToken)"])
                #expect(response.status == .notFound, "\(path) on the public listener")
            }
            let statuses: [String: [HTTPResponse.Status]] = try await Application(router: gateway.routes.adminRouter()).test(.router) { admin in
                var statuses: [String: [HTTPResponse.Status]] = [:]
                for path in Self.adminPaths + ["/v1/search?q=curry"] {
                    let refused = try await admin.get(path)
                    let allowed = try await admin.get(path, headers: [.authorization: "Bearer \(adminToken)"])
                    statuses[path] = [refused.status, allowed.status]
                }
                return statuses
            }
            // Everything there, the public routes the console draws from too, needs the token.
            for (path, pair) in statuses { #expect(pair == [.unauthorized, .ok], "\(path) on the admin listener") }
        }
    }

    @Test("Every response carries a CSP with frame-ancestors; CORS only for listed origins")
    func headersAndCORS() async throws {
        let fixture = try await WorkerFixture(partitions: 2, documents: 100, users: 5)
        var configuration = GatewayHarness.configuration(fixture)
        try await GatewayHarness.with(configuration) { client, _ in
            for path in ["/v1/search?q=curry", "/v1/search", "/nowhere", "/readyz", "/console", "/metrics"] {
                let response = try await client.get(path, headers: [.origin: "https://app.example.com"])
                let policy = response.headers[.contentSecurityPolicy] ?? ""
                #expect(policy.contains("frame-ancestors 'none'"), "\(path): \(policy)")
                #expect(policy.contains("default-src 'none'"), "\(path)")
                #expect(response.headers[.xContentTypeOptions] == "nosniff", "\(path)")
                #expect(response.headers[.accessControlAllowOrigin] == nil, "\(path): CORS is off by default")
            }
            #expect((try await client.get("/console").headers[.contentSecurityPolicy] ?? "").contains("script-src 'self'"))
        }
        configuration.gateway.corsOrigins = ["https://app.example.com"]
        try await GatewayHarness.with(configuration) { client, _ in
            let allowed = try await client.get("/v1/search?q=curry", headers: [.origin: "https://app.example.com"])
            #expect(allowed.headers[.accessControlAllowOrigin] == "https://app.example.com")
            let other = try await client.get("/v1/search?q=curry", headers: [.origin: "https://evil.example.com"])
            #expect(other.headers[.accessControlAllowOrigin] == nil)
            let preflight = try await client.execute(
                uri: "/v1/feeds/home/components:batchGet", method: .options,
                headers: [.origin: "https://app.example.com", .accessControlRequestMethod: "POST"])
            #expect(preflight.status == .noContent)
            #expect(preflight.headers[.accessControlAllowMethods]?.contains("POST") == true)
        }
    }

    @Test("Beyond loopback the console cookie is Secure")
    func secureCookieBeyondLoopback() async throws {
        let fixture = try await WorkerFixture(partitions: 2, documents: 100, users: 5)
        var configuration = GatewayHarness.configuration(fixture)
        let console = IdentityRouteTests.strong()
        configuration.console.token = Secret(console)
        try await GatewayHarness.with(configuration) { client, _ in
            let login = try await client.get("/console?token=\(console.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
            #expect(login.status == .seeOther)
            #expect(login.headers[.setCookie]?.contains("Secure") == false, "plain HTTP on loopback (make run)")
        }
        // The same gateway configured for 0.0.0.0 (the router test binds nothing).
        configuration.gateway.host = "0.0.0.0"
        configuration.gateway.cursorKey = Secret(IdentityRouteTests.strong())
        configuration.gateway.impressionKey = Secret(IdentityRouteTests.strong())
        configuration.admin.token = Secret(IdentityRouteTests.strong())
        configuration.identity.mode = .proxy
        configuration.identity.proxy.secret = Secret(IdentityRouteTests.strong())
        try await GatewayHarness.with(configuration) { client, _ in
            let login = try await client.get("/console?token=\(console.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
            #expect(login.status == .seeOther)
            let cookie = login.headers[.setCookie] ?? ""
            #expect(cookie.contains("; Secure") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"), "\(cookie)")
        }
    }
}
