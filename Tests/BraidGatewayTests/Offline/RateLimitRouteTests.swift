import BraidConfig
import BraidCore
import BraidHarness
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// `gateway.rate_limits` on a real gateway (the offline one: Redis and Kafka refuse, the live
/// SQLite backend answers, so pages are 200 and degraded). Refill rates are tiny, so no token
/// comes back while a test runs: what is asserted does not depend on timing.
@Suite("Rate limits per caller", .timeLimit(.minutes(5)))
struct RateLimitRouteTests {
    static func headers(_ pairs: [(String, String)]) -> HTTPFields {
        var headers = HTTPFields()
        for (name, value) in pairs { headers[.init(name)!] = value }
        return headers
    }

    /// The status of a GET over a connection of its own, patient as the gateway is (OfflineGateway's
    /// live timeout, 60 s): the test client gives up after 20 s, which one page beside the whole
    /// fast tier on CI's two cores once took. The peer is 127.0.0.1, as the test client's is.
    static func status(_ client: any TestClientProtocol, _ path: String, forwardedFor: String? = nil) async throws -> HTTPResponse.Status {
        let port = try #require(client.port)
        let headers = forwardedFor.map { [("X-Forwarded-For", $0)] } ?? []
        let response = try await HTTPProbe.request("http://127.0.0.1:\(port)\(path)", headers: headers, timeout: .seconds(60))
        return HTTPResponse.Status(code: response.status)
    }

    static func limited(_ configuration: inout BraidConfiguration, identityBurst: Int = 1_000, addressBurst: Int) {
        configuration.gateway.rateLimits.perAddress = .init(ratePerSecond: 0.001, burst: addressBurst)
        configuration.gateway.rateLimits.perIdentity = .init(ratePerSecond: 0.001, burst: identityBurst)
    }

    @Test("An address over its burst gets 429 with Retry-After and a JSON error; health checks are not limited; pages stay 200 with Redis down")
    func perAddress() async throws {
        try await OfflineGateway.with(live: true, configure: { Self.limited(&$0, addressBurst: 3) }) { client, _ in
            for _ in 0..<3 {
                let page = try JSONBody(try await client.execute(uri: "/v1/search?q=curry", method: .get))
                #expect(page.status == 200, "\(page.object)")
            }
            let refused = try await client.execute(uri: "/v1/search?q=curry", method: .get)
            #expect(refused.status == .tooManyRequests)
            let retryAfter = try #require(refused.headers[.retryAfter].flatMap { Int($0) })
            #expect(retryAfter >= 1)
            #expect(try JSONBody(refused).errorCode == "rate_limited")
            // Every public route that computes or records shares the address's bucket.
            let events = try await client.execute(
                uri: "/v1/events", method: .post, body: ByteBuffer(string: #"{"events":[]}"#))
            #expect(events.status == .tooManyRequests)
            do { let got = try await client.execute(uri: "/v1/feeds/home?user=u1", method: .get).status; #expect(got == .tooManyRequests) }
            do { let got = try await client.execute(uri: "/healthz", method: .get).status; #expect(got == .ok) }
        }
    }

    @Test("Behind a trusted proxy each forwarded client has its own bucket; a forged X-Forwarded-For from an untrusted peer changes nothing")
    func throughTrustedProxies() async throws {
        try await OfflineGateway.with(live: true, configure: { Self.limited(&$0, addressBurst: 2) }) { client, _ in
            func status(forwardedFor: String) async throws -> HTTPResponse.Status {
                try await Self.status(client, "/v1/search?q=rice", forwardedFor: forwardedFor)
            }
            // The peer (127.0.0.1) is not a trusted proxy here: the header is ignored, one bucket.
            do { let got = try await status(forwardedFor: "192.0.2.1"); #expect(got == .ok) }
            do { let got = try await status(forwardedFor: "192.0.2.2"); #expect(got == .ok) }
            do { let got = try await status(forwardedFor: "192.0.2.3"); #expect(got == .tooManyRequests) }
        }
        try await OfflineGateway.with(live: true, configure: {
            Self.limited(&$0, addressBurst: 2)
            $0.gateway.trustedProxies = ["127.0.0.1"]
        }) { client, _ in
            func status(forwardedFor: String) async throws -> HTTPResponse.Status {
                try await Self.status(client, "/v1/search?q=rice", forwardedFor: forwardedFor)
            }
            do { let got = try await status(forwardedFor: "192.0.2.1"); #expect(got == .ok) }
            do { let got = try await status(forwardedFor: "192.0.2.1"); #expect(got == .ok) }
            do { let got = try await status(forwardedFor: "192.0.2.1"); #expect(got == .tooManyRequests) }
            do { let got = try await status(forwardedFor: "192.0.2.2"); #expect(got == .ok) }
            // IPv6 clients are counted by their /64.
            do { let got = try await status(forwardedFor: "2001:db8:1:2::1"); #expect(got == .ok) }
            do { let got = try await status(forwardedFor: "2001:db8:1:2::2"); #expect(got == .ok) }
            do { let got = try await status(forwardedFor: "2001:db8:1:2:ffff::3"); #expect(got == .tooManyRequests) }
            do { let got = try await status(forwardedFor: "2001:db8:1:3::1"); #expect(got == .ok) }
        }
    }

    @Test("A verified user has a bucket of their own, whatever address they come from")
    func perIdentity() async throws {
        let secret = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        try await OfflineGateway.with(configure: {
            Self.limited(&$0, identityBurst: 2, addressBurst: 1_000)
            $0.identity.mode = .proxy
            $0.identity.proxy.secret = Secret(secret)
        }) { client, _ in
            func status(user: String) async throws -> HTTPResponse.Status {
                try await client.execute(
                    uri: "/v1/feeds/home", method: .get,
                    headers: Self.headers([("X-Braid-User", user), ("X-Braid-Proxy-Secret", secret)])).status
            }
            do { let got = try await status(user: "u00001"); #expect(got == .ok) }
            do { let got = try await status(user: "u00001"); #expect(got == .ok) }
            do { let got = try await status(user: "u00001"); #expect(got == .tooManyRequests) }
            do { let got = try await status(user: "u00002"); #expect(got == .ok) }
            // A refused credential is refused (401) as without limits, and not charged to anyone's bucket.
            let forged = try await client.execute(
                uri: "/v1/feeds/home", method: .get, headers: Self.headers([("X-Braid-User", "u00001"), ("X-Braid-Proxy-Secret", "wrong")]))
            #expect(forged.status == .unauthorized)
        }
    }

    @Test("rate_limits.enabled false: no limit")
    func disabled() async throws {
        try await OfflineGateway.with(live: true, configure: {
            Self.limited(&$0, addressBurst: 1)
            $0.gateway.rateLimits.enabled = false
        }) { client, _ in
            for _ in 0..<3 { do { let got = try await client.execute(uri: "/v1/search?q=curry", method: .get).status; #expect(got == .ok) } }
        }
    }

    @Test("exempt_loopback: a loopback caller is not limited; a client forwarded by a trusted proxy on loopback still is")
    func exemptLoopback() async throws {
        try await OfflineGateway.with(live: true, configure: {
            Self.limited(&$0, addressBurst: 2)
            $0.gateway.rateLimits.exemptLoopback = true
            $0.gateway.trustedProxies = ["127.0.0.1"]
        }) { client, _ in
            for _ in 0..<6 { do { let got = try await Self.status(client, "/v1/search?q=curry"); #expect(got == .ok) } }
            // A same-host proxy naming its client: the client is not loopback, so it is limited.
            func forwarded() async throws -> HTTPResponse.Status {
                try await Self.status(client, "/v1/search?q=rice", forwardedFor: "192.0.2.9")
            }
            do { let got = try await forwarded(); #expect(got == .ok) }
            do { let got = try await forwarded(); #expect(got == .ok) }
            do { let got = try await forwarded(); #expect(got == .tooManyRequests) }
        }
    }
}
