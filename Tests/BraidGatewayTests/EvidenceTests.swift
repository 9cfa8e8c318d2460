import BraidCore
import BraidConfig
import BraidContracts
import BraidGateway
import BraidTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// Evidence integrity (impression ids of format version 3): events only within their id's
/// window, only from the id's user, and duplicates counted but never credited twice; through
/// the gateway, the broker, a `braid worker` and Redis.
@Suite("Evidence", .serialized, .integration)
struct EvidenceTests {
    static func post(_ client: some TestClientProtocol, _ events: [[String: Any]], token: String? = nil) async throws -> JSONBody {
        var headers: HTTPFields = [:]
        if let token { headers[.authorization] = "Bearer \(token)" }
        let body = try JSONSerialization.data(withJSONObject: ["events": events])
        return try JSONBody(try await client.execute(uri: "/v1/events", method: .post, headers: headers, body: ByteBuffer(bytes: body)))
    }

    /// Polls the outcome until `done` holds (the worker credits asynchronously).
    static func outcome(
        _ client: some TestClientProtocol, _ experiment: String, headers: HTTPFields = [:], until done: (JSONBody) -> Bool
    ) async throws -> JSONBody {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            let outcome = try JSONBody(try await client.get("/v1/experiments/\(experiment)", headers: headers))
            if done(outcome) { return outcome }
            try #require(ContinuousClock.now < deadline, "the outcome never got there: \(outcome.object)")
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    @Test("Duplicates get 202, are counted as duplicates and credited once; ids outside their window are refused and counted")
    func duplicatesAndWindow() async throws {
        let fixture = try await WorkerFixture(documents: 300, users: 5)
        var configuration = GatewayHarness.configuration(fixture)
        configuration.interleaving.arms = [.init(name: "evidence-exp", weight: 100, mode: .teamDraft)]
        configuration.gateway.impressionWindow = .seconds(600)
        let worker = try await fixture.startWorker("evidence-worker")
        defer { worker.signal(SIGTERM) }
        // The gateway's own key: the test mints ids as a gateway would have at other times.
        let codec = ImpressionCodec(key: configuration.gateway.impressionKey)
        try await GatewayHarness.with(configuration) { client, _ in
            let page = try await client.json("/v1/search?q=curry&per_page=10&session=d1")
            let id = try #require(page["impression_id"] as? String, "\(page.object)")
            let items = try #require(page["items"] as? [[String: Any]])
            let b = try #require(items.first { $0["team"] as? String == "B" }?["position"] as? Int)
            let events: [[String: Any]] = [["type": "impression", "impression_id": id], ["type": "click", "impression_id": id, "position": b]]
            // The client retries the batch twice (say its first answer was lost): all 202.
            for _ in 0..<3 {
                let accepted = try await Self.post(client, events)
                #expect(accepted.status == 202 && accepted["accepted"] as? Int == 2, "\(accepted.object)")
            }
            // Four resent events, or more: Kafka delivers at least once, and a message the worker
            // reads again (its group rebalancing as it starts) is one more duplicate, never credit.
            let outcome = try await Self.outcome(client, "evidence-exp") { ($0["duplicates"] as? Int ?? 0) >= 4 }
            let duplicates = try #require(outcome["duplicates"] as? Int)
            #expect((4...6).contains(duplicates), "\(outcome.object)")
            #expect(outcome["impressions"] as? Int == 1 && outcome["wins_b"] as? Int == 1 && outcome["ties"] as? Int == 0, "credited once: \(outcome.object)")

            // Ids issued outside the window, and an id from before version 3.
            let now = Int64(Date().timeIntervalSince1970)
            func minted(issuedAt: Int64?) -> String {
                codec.encode(ImpressionToken(
                    experiment: "evidence-exp", offset: 0, teams: [.a, .b], creditWindow: 0..<2, nonce: UInt64.random(in: 0...UInt64.max),
                    issuedAt: issuedAt, userKey: codec.userKey(user: nil, session: "d1")))
            }
            let refused: [(String, String)] = [
                (minted(issuedAt: now - 601), "impression_expired"),
                (minted(issuedAt: now - Int64(ImpressionValidity.impressionStateTTLSeconds)), "impression_expired"),
                (minted(issuedAt: now + 400), "impression_from_the_future"),
                (minted(issuedAt: nil), "impression_outdated"),
            ]
            for (old, code) in refused {
                // One refused event refuses the batch, the good one with it.
                let response = try await Self.post(client, [events[0], ["type": "click", "impression_id": old, "position": 1]])
                #expect(response.status == 400 && response.errorCode == code, "\(code): \(response.object)")
                #expect((response["error"] as? [String: Any])?["message"] as? String ?? "" != "")
            }
            #expect(try await Self.post(client, [["type": "click", "impression_id": minted(issuedAt: now - 590), "position": 1]]).status == 202)
            let counted = try await Self.outcome(client, "evidence-exp") { ($0["impressions"] as? Int ?? 0) >= 2 }
            let rejected = try #require(counted["rejected"] as? [String: Any], "\(counted.object)")
            for (reason, count) in ["expired": 2, "from_the_future": 1, "outdated": 1, "foreign_user": 0] {
                #expect(rejected[reason] as? Int == count, "\(reason): \(rejected)")
            }
            // The good events of refused batches were not published: no more duplicates (each
            // would have been one).
            #expect(counted["duplicates"] as? Int == duplicates, "\(counted.object)")
        }
    }

    @Test("A verified user's ids are evidence only from that user; anonymous ids only from anonymous callers")
    func evidenceIsBoundToItsCaller() async throws {
        let fixture = try await WorkerFixture(documents: 300, users: 5)
        let issuer = try await TestTokenIssuer()
        var configuration = try IdentityRouteTests.jwtConfiguration(fixture, issuer)
        configuration.interleaving.arms = [.init(name: "bound-exp", weight: 100, mode: .teamDraft)]
        let admin: HTTPFields = [.authorization: "Bearer \(configuration.admin.token.text)"]
        try await GatewayHarness.with(configuration) { client, _ in
            let alice = try await issuer.token(for: "u00001")
            let bob = try await issuer.token(for: "u00002")
            let mine = try JSONBody(try await client.get("/v1/search?q=curry&per_page=10", headers: [.authorization: "Bearer \(alice)"]))
            let aliceID = try #require(mine["impression_id"] as? String, "\(mine.object)")
            let anonymous = try await client.json("/v1/search?q=curry&per_page=10&session=anon-1")
            let anonymousID = try #require(anonymous["impression_id"] as? String, "\(anonymous.object)")
            // A credential that does not verify is a 401 on search too, not an anonymous page.
            let badToken = try await client.get("/v1/search?q=curry", headers: [.authorization: "Bearer not-a-token"])
            #expect(badToken.status == .unauthorized)

            let impression = { (id: String) in [["type": "impression", "impression_id": id] as [String: Any]] }
            let cases: [(String, String, String?, Int)] = [
                ("alice's id from alice", aliceID, alice, 202),
                ("alice's id from bob", aliceID, bob, 403),
                ("alice's id without a credential", aliceID, nil, 403),
                ("an anonymous id from alice", anonymousID, alice, 403),
                ("an anonymous id, anonymously", anonymousID, nil, 202),
            ]
            for (what, id, token, status) in cases {
                let response = try await Self.post(client, impression(id), token: token)
                #expect(response.status == status, "\(what): \(response.object)")
                if status == 403 { #expect(response.errorCode == "foreign_impression", "\(what)") }
            }
            let outcome = try JSONBody(try await client.get("/v1/experiments/bound-exp", headers: admin))
            #expect((outcome["rejected"] as? [String: Any])?["foreign_user"] as? Int == 3, "\(outcome.object)")
        }
    }
}
