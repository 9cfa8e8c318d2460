import BraidCore
import BraidGateway
import BraidConfig
import BraidTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// Team-draft evaluation end to end: pages carry signed impression ids, the gateway
/// publishes impressions and clicks to Kafka, a `braid worker` credits them in Redis, and
/// `GET /v1/experiments/{id}` reports the outcome.
@Suite("Evaluation", .serialized, .integration)
struct EvaluationTests {
    @Test("Impressions and clicks are credited per impression, once, and reported with a sign test")
    func creditThroughTheWorker() async throws {
        let fixture = try await WorkerFixture(documents: 300, users: 5)
        var configuration = GatewayHarness.configuration(fixture)
        configuration.interleaving.arms = [.init(name: "draft-exp", weight: 100, mode: .teamDraft)]
        let worker = try await fixture.startWorker("events-worker")
        defer { worker.signal(SIGTERM) }
        try await GatewayHarness.with(configuration) { client, _ in
            var impressions: [(id: String, a: Int, b: Int)] = []
            for session in ["e1", "e2", "e3"] {
                let page = try await client.json("/v1/search?q=curry&per_page=10&session=\(session)")
                let id = try #require(page["impression_id"] as? String, "a team-draft page without impression_id: \(page.object)")
                let items = try #require(page["items"] as? [[String: Any]])
                let a = try #require(items.first { $0["team"] as? String == "A" }?["position"] as? Int)
                let b = try #require(items.first { $0["team"] as? String == "B" }?["position"] as? Int)
                impressions.append((id, a, b))
            }
            func post(_ events: [[String: Any]]) async throws -> JSONBody {
                let body = try JSONSerialization.data(withJSONObject: ["events": events])
                return try JSONBody(try await client.execute(uri: "/v1/events", method: .post, body: ByteBuffer(bytes: body)))
            }
            // Impression 1: B clicked (twice: counts once). 2: A clicked. 3: no click, a tie.
            let accepted = try await post([
                ["type": "impression", "impression_id": impressions[0].id],
                ["type": "click", "impression_id": impressions[0].id, "position": impressions[0].b],
                ["type": "click", "impression_id": impressions[0].id, "position": impressions[0].b],
                ["type": "impression", "impression_id": impressions[1].id],
                ["type": "click", "impression_id": impressions[1].id, "position": impressions[1].a],
                ["type": "impression", "impression_id": impressions[2].id],
                ["type": "impression", "impression_id": impressions[2].id],
            ])
            #expect(accepted.status == 202, "\(accepted.object)")
            #expect(accepted["accepted"] as? Int == 7)

            var forged = Array(impressions[0].id)
            forged[forged.count / 2] = forged[forged.count / 2] == "A" ? "B" : "A"
            let refused: [[[String: Any]]] = [
                [],
                [["type": "click", "impression_id": String(forged), "position": impressions[0].b]],
                [["type": "click", "impression_id": impressions[0].id, "position": 10_000]],
                [["type": "click", "impression_id": impressions[0].id]],
                [["type": "scroll", "impression_id": impressions[0].id]],
                Array(repeating: ["type": "impression", "impression_id": impressions[0].id], count: 101),
            ]
            for events in refused {
                let response = try await post(events)
                #expect(response.status == 400, "\(events.prefix(1)): \(response.object)")
                #expect(response.errorCode != nil)
            }

            let deadline = ContinuousClock.now + .seconds(60)
            var outcome = try await client.json("/v1/experiments/draft-exp")
            while outcome["impressions"] as? Int != 3 || outcome["ties"] as? Int != 1 {
                try #require(ContinuousClock.now < deadline, "the worker did not credit the events: \(outcome.object)")
                try await Task.sleep(for: .milliseconds(200))
                outcome = try await client.json("/v1/experiments/draft-exp")
            }
            #expect(outcome["wins_a"] as? Int == 1)
            #expect(outcome["wins_b"] as? Int == 1)
            #expect((outcome["p_value"] as? Double).map { abs($0 - 1) < 1e-9 } == true)
            // Δ = (1 − 1) / 3 with the Bonett–Price interval computed by hand: ±1.96·√(0.8 / 5).
            let preference = try #require(outcome["preference"] as? [String: Any], "\(outcome.object)")
            Self.expectPreference(preference, delta: 0, lower: -0.783_986, upper: 0.783_986)
            #expect(outcome["teams"] as? Int == 2)
            let pairs = try #require(outcome["pairs"] as? [[String: Any]], "\(outcome.object)")
            #expect(pairs.count == 1 && pairs[0]["first"] as? Int == 0 && pairs[0]["second"] as? Int == 1, "\(pairs)")
            #expect(pairs[0]["wins_first"] as? Int == 1 && pairs[0]["wins_second"] as? Int == 1 && pairs[0]["ties"] as? Int == 1, "\(pairs)")
            Self.expectPreference(try #require(pairs[0]["preference"] as? [String: Any]), delta: 0, lower: -0.783_986, upper: 0.783_986)
            let unknown = try await client.json("/v1/experiments/never-run")
            #expect(unknown["impressions"] as? Int == 0)
            #expect(try await client.json("/v1/experiments/Bad%20Id").status == 400)
        }
    }

    @Test("A click on a slot outside the credit window (A-only slots before start) is published but not credited")
    func clicksOutsideTheWindowAreNotEvidence() async throws {
        let fixture = try await WorkerFixture(documents: 300, users: 5)
        var configuration = GatewayHarness.configuration(fixture)
        configuration.interleaving.arms = [.init(name: "window-exp", weight: 100, start: 3, mode: .teamDraft)]
        let worker = try await fixture.startWorker("window-worker")
        defer { worker.signal(SIGTERM) }
        try await GatewayHarness.with(configuration) { client, _ in
            let page = try await client.json("/v1/search?q=curry&per_page=10&session=w1")
            let id = try #require(page["impression_id"] as? String, "a team-draft page without impression_id: \(page.object)")
            let items = try #require(page["items"] as? [[String: Any]])
            #expect(items.prefix(3).allSatisfy { $0["team"] as? String == "A" }, "start 3: the first three slots are A's")
            let b = try #require(items.first { $0["team"] as? String == "B" }?["position"] as? Int)
            let body = try JSONSerialization.data(withJSONObject: ["events": [
                ["type": "impression", "impression_id": id],
                // Position 0 is A's only because A holds the top: not evidence.
                ["type": "click", "impression_id": id, "position": 0],
                ["type": "click", "impression_id": id, "position": b],
            ]])
            let accepted = try JSONBody(try await client.execute(uri: "/v1/events", method: .post, body: ByteBuffer(bytes: body)))
            #expect(accepted["accepted"] as? Int == 3, "\(accepted.object)")
            // One partition per impression, in order: crediting position 0 would make the
            // impression a tie (one click each) and never a win of B.
            let deadline = ContinuousClock.now + .seconds(60)
            var outcome = try await client.json("/v1/experiments/window-exp")
            while outcome["wins_b"] as? Int != 1 {
                try #require(ContinuousClock.now < deadline, "B's in-window click did not win the impression: \(outcome.object)")
                try await Task.sleep(for: .milliseconds(200))
                outcome = try await client.json("/v1/experiments/window-exp")
            }
            #expect(outcome["impressions"] as? Int == 1 && outcome["ties"] as? Int == 0 && outcome["wins_a"] as? Int == 0, "\(outcome.object)")
            // One win of B in one impression: Δ = 1, interval (by hand) [−0.7335, 1].
            Self.expectPreference(try #require(outcome["preference"] as? [String: Any]), delta: 1, lower: -0.733_536, upper: 1)
        }
    }

    static func expectPreference(_ preference: [String: Any], delta: Double, lower: Double, upper: Double, sourceLocation: SourceLocation = #_sourceLocation) {
        for (key, expected) in [("delta", delta), ("ci_lower", lower), ("ci_upper", upper)] {
            let value = preference[key] as? Double
            #expect(value.map { abs($0 - expected) < 1e-5 } == true, "\(key): \(String(describing: value)), expected \(expected)", sourceLocation: sourceLocation)
        }
    }
}
