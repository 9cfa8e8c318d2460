import BraidCore
@testable import BraidGateway
import Foundation
import Hummingbird
import Logging
import Testing

/// The pure parts of who may reach what: trusted proxies, CORS origins, public error
/// messages, and the request deadlines' state machine.
@Suite("access logic")
struct AccessLogicTests {
    @Test func forwardedForIsBelievedOnlyFromTrustedProxies() throws {
        let proxies = TrustedProxies([try #require(AddressRange("10.0.0.0/8")), try #require(AddressRange("2001:db8::/32"))])
        // An untrusted peer: whatever it writes in X-Forwarded-For, the client is the peer.
        #expect(proxies.client(peer: "203.0.113.7", forwardedFor: ["127.0.0.1"]) == "203.0.113.7")
        #expect(TrustedProxies.none.client(peer: "10.1.1.1", forwardedFor: ["198.51.100.2"]) == "10.1.1.1")
        // Through trusted proxies: the right-most hop that is not one of them.
        #expect(proxies.client(peer: "10.0.0.5", forwardedFor: ["1.2.3.4, 198.51.100.2"]) == "198.51.100.2")
        #expect(proxies.client(peer: "10.0.0.5", forwardedFor: ["spoofed", "198.51.100.2, 10.9.9.9"]) == "198.51.100.2")
        #expect(proxies.client(peer: "::ffff:10.0.0.5", forwardedFor: ["198.51.100.2"]) == "198.51.100.2", "an IPv4-mapped peer")
        #expect(proxies.client(peer: "10.0.0.5", forwardedFor: []) == "10.0.0.5")
        #expect(proxies.forwardedHTTPS(peer: "10.0.0.5", forwardedProto: "https"))
        #expect(!proxies.forwardedHTTPS(peer: "203.0.113.7", forwardedProto: "https"), "an untrusted peer cannot claim TLS")
        #expect(AddressRange("10.0.0.0/33") == nil && AddressRange("ten") == nil && AddressRange("10.0.0.1/x") == nil)
        #expect(AddressRange("192.0.2.7")?.contains("192.0.2.7") == true && AddressRange("192.0.2.7")?.contains("192.0.2.8") == false)
        #expect(AddressRange("10.1.2.3/8")?.description == "10.0.0.0/8" && AddressRange("2001:db8:1::7/32")?.description == "2001:db8::/32",
                "a range describes itself by its network")
    }

    @Test func corsIsOffUnlessAnOriginIsListed() {
        let listed = CORSMiddleware<GatewayRequestContext>(origins: ["https://app.example.com"])
        #expect(listed.allow("https://app.example.com") == "https://app.example.com")
        #expect(listed.allow("https://evil.example.com") == nil)
        #expect(CORSMiddleware<GatewayRequestContext>(origins: []).allow("https://app.example.com") == nil)
        #expect(CORSMiddleware<GatewayRequestContext>(origins: ["*"]).allow("https://anything.example") == "*")
    }

    /// A 5xx body says what failed, never where: the thrower's message goes to the log only.
    @Test func unavailableErrorsHaveAPublicMessage() {
        let leaky = GatewayError.unavailable("the live search backend failed: connect(127.0.0.1:8081): refused", code: "live_unavailable")
        #expect(leaky.publicMessage == "the live search backend is unavailable; try again later")
        let unknown = GatewayError.unavailable("redis://10.1.2.3:6379 said LOADING", code: "something_new")
        #expect(!unknown.publicMessage.contains("10.1.2.3"))
        let client = GatewayError.badRequest("per_page must be 1-100")
        #expect(client.publicMessage == "per_page must be 1-100", "client errors say what the client got wrong")
    }

    @Test func requestDeadlinesFollowEachRequest() {
        var deadlines = RequestDeadlines()
        #expect(deadlines.opened() == .arm(.header), "a client that sends nothing is cut off too")
        #expect(deadlines.bytesArrived() == .none, "the deadline runs from the first byte, it is not restarted by more")
        #expect(deadlines.headReceived() == .arm(.body))
        #expect(deadlines.endReceived() == .disarm)
        #expect(deadlines.fired(.body) == .none, "a timer that fires after its deadline was disarmed closes nothing")
        #expect(deadlines.responseEnded() == .none, "between requests: the idle timeout's business")
        #expect(deadlines.bytesArrived() == .arm(.header), "the next request's first byte starts its header deadline")
        #expect(deadlines.fired(.header) == .close(.header))
    }

    @Test func aConsoleSessionIsValidUntilItsExpiryOnlyUnderTheTokenThatSignedIt() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let session = ConsoleSession(token: Secret("console-token-0123456789"), lifetime: .seconds(3_600))
        let cookie = session.issue(now: now)
        #expect(!cookie.contains("console-token"), "\(cookie)")
        #expect(session.isValid(cookie, now: now) && session.isValid(cookie, now: now.addingTimeInterval(3_599)))
        #expect(!session.isValid(cookie, now: now.addingTimeInterval(3_600)), "expired")
        #expect(session.issue(now: now) != cookie, "each session has a nonce of its own")
        let rotated = ConsoleSession(token: Secret("another-token-0123456789"), lifetime: .seconds(3_600))
        #expect(!rotated.isValid(cookie, now: now), "another token's session")
        // Tampering: a later expiry, another nonce, a cut signature, garbage.
        var parts = cookie.split(separator: ".").map(String.init)
        parts[1] = String(Int(parts[1])! + 86_400)
        #expect(!session.isValid(parts.joined(separator: "."), now: now))
        parts = cookie.split(separator: ".").map(String.init)
        parts[2] = String(parts[2].reversed())
        #expect(!session.isValid(parts.joined(separator: "."), now: now))
        #expect(!session.isValid(String(cookie.dropLast(2)), now: now))
        for junk in ["", "1", "1.2.3", "2.\(parts[1]).\(parts[2]).\(parts[3])", "console-token-0123456789"] {
            #expect(!session.isValid(junk, now: now), "\(junk)")
        }
        #expect("\(session)" == "ConsoleSession(<redacted>)")
    }

    /// The gateway's holders of credentials print as their name alone.
    @Test func credentialHoldersDescribeThemselvesRedacted() async throws {
        let token = "admin-token-of-the-redaction-test"
        let credentials = AdminCredentials(adminToken: Secret(token), consoleToken: Secret("console-\(token)"))
        let proxy = try #require(ProxyCredential(userHeader: "X-User", secretHeader: "X-Proof", secret: Array("proxy-\(token)".utf8)))
        let keys = JWTKeySet(fetch: nil, hs256Key: Secret("hs256-\(token)"), maxStale: .seconds(1), logger: .init(label: "test"))
        for value in [credentials as Any, proxy, keys] {
            var dumped = ""
            dump(value, to: &dumped)
            let text = "\(value) \(String(reflecting: value)) \(dumped)"
            #expect(text.contains("<redacted>") && !text.contains(token), "\(text)")
            #expect(!text.contains("[" + Array(token.utf8).prefix(4).map(String.init).joined(separator: ", ")), "\(text)")
        }
    }
}
