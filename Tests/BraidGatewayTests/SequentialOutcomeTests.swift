import BraidConfig
import BraidCore
import BraidGateway
import BraidTestSupport
import BraidWiring
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// The sequential decision on `GET /v1/experiments/{id}`, end to end: pages with impression ids,
/// events through Kafka, a `braid worker` crediting them in Redis, and the gateway taking the
/// looks that are due when the outcome is read and keeping them next to the counters.
@Suite("Sequential outcome", .serialized, .integration)
struct SequentialOutcomeTests {
    @Test("The decision keeps going, then says B once B's wins cross the boundary, and stays B when A catches up")
    func theDecisionAppearsAndStays() async throws {
        let fixture = try await WorkerFixture(documents: 300, users: 5)
        var configuration = GatewayHarness.configuration(fixture)
        // A large margin and a look every 2 decided sessions: a decision within a few dozen sessions.
        configuration.interleaving.arms = [
            .init(name: "seq-exp", weight: 100, mode: .teamDraft, sequential: .init(margin: 0.5, lookEvery: 2))
        ]
        let worker = try await fixture.startWorker("sequential-worker")
        defer { worker.signal(SIGTERM) }
        try await GatewayHarness.with(configuration) { client, _ in
            var served = 0
            /// `count` new impressions, each won by `team` (a click on that team's first item).
            func win(_ team: String, count: Int) async throws {
                var events: [[String: Any]] = []
                for _ in 0..<count {
                    served += 1
                    let page = try await client.json("/v1/search?q=curry&per_page=10&session=seq\(served)")
                    let id = try #require(page["impression_id"] as? String, "a team-draft page without impression_id: \(page.object)")
                    let items = try #require(page["items"] as? [[String: Any]])
                    let position = try #require(items.first { $0["team"] as? String == team }?["position"] as? Int, "no \(team) item: \(items)")
                    events += [["type": "impression", "impression_id": id], ["type": "click", "impression_id": id, "position": position]]
                }
                let body = try JSONSerialization.data(withJSONObject: ["events": events])
                let accepted = try JSONBody(try await client.execute(uri: "/v1/events", method: .post, body: ByteBuffer(bytes: body)))
                #expect(accepted["accepted"] as? Int == events.count, "\(accepted.object)")
            }
            /// The outcome once the worker has credited `a` and `b` wins.
            func outcome(a: Int, b: Int) async throws -> (JSONBody, [String: Any]) {
                let deadline = ContinuousClock.now + .seconds(60)
                while true {
                    let outcome = try await client.json("/v1/experiments/seq-exp")
                    if outcome["wins_a"] as? Int == a, outcome["wins_b"] as? Int == b {
                        // Read once more: this read takes the look the final counts make due.
                        let settled = try await client.json("/v1/experiments/seq-exp")
                        return (settled, try #require(settled["sequential"] as? [String: Any], "\(settled.object)"))
                    }
                    try #require(ContinuousClock.now < deadline, "the worker did not credit \(a) + \(b) wins: \(outcome.object)")
                    try await Task.sleep(for: .milliseconds(200))
                }
            }

            // Nothing yet: keep going, no look, p = 1, no confidence sequence.
            let (_, empty) = try await outcome(a: 0, b: 0)
            #expect(empty["decision"] as? String == "keep going" && empty["look"] as? Int == 0, "\(empty)")
            #expect(empty["p_value"] as? Double == 1 && empty["interval"] is NSNull, "\(empty)")
            #expect(empty["correction"] as? String == "none", "\(empty)")
            let design = try #require(empty["design"] as? [String: Any])
            #expect(design["margin"] as? Double == 0.5 && design["look_every"] as? Int == 2 && design["power"] as? Double == 0.8, "\(design)")
            let looks = try #require(design["looks"] as? Int)
            #expect(looks > 7 && design["max_sessions"] as? Int == 2 * looks, "\(design)")

            // Two B wins: look 1, Z = √2, far inside the first boundary.
            try await win("B", count: 2)
            let (_, first) = try await outcome(a: 0, b: 2)
            #expect(first["decision"] as? String == "keep going" && first["look"] as? Int == 1 && first["decided_sessions"] as? Int == 2, "\(first)")
            let firstP = try #require(first["p_value"] as? Double)
            #expect(firstP < 1 && firstP > 0.05, "\(first)")
            let interval = try #require(first["interval"] as? [String: Any], "\(first)")
            #expect((interval["lower"] as? Double ?? 1) < 0 && interval["upper"] as? Double == 1, "\(interval)")

            // Twelve more: Z = √14 ≈ 3.7 crosses B's boundary (≈ 3 at a quarter of the run) by look 7.
            try await win("B", count: 12)
            let (decidedOutcome, decided) = try await outcome(a: 0, b: 14)
            #expect(decided["decision"] as? String == "B", "\(decided)")
            let decidedAt = try #require(decided["decided_at_look"] as? Int, "\(decided)")
            #expect((2...7).contains(decidedAt) && decided["look"] as? Int == 7, "\(decided)")
            let decidedP = try #require(decided["p_value"] as? Double)
            #expect(decidedP <= 0.05 && decidedP < firstP, "\(decided)")
            let pair = try #require((decidedOutcome["pairs"] as? [[String: Any]])?.first?["sequential"] as? [String: Any])
            #expect(pair["decision"] as? String == "B" && pair["look"] as? Int == 7, "the pair's reading is the top level's: \(pair)")

            // A catches up: today's totals (20 against 14) would not say B, the looks taken do.
            try await win("A", count: 20)
            let (_, after) = try await outcome(a: 20, b: 14)
            #expect(after["decision"] as? String == "B" && after["decided_at_look"] as? Int == decidedAt, "a crossing stays a decision: \(after)")
            #expect(after["look"] as? Int == 17 && after["decided_sessions"] as? Int == 34, "\(after)")
            #expect((after["p_value"] as? Double).map { $0 <= decidedP + 1e-12 } == true, "the always-valid p-value never rises: \(after)")
        }
    }
}

/// Designs that cannot run are refused when the gateway is built, naming the key.
@Suite("Sequential designs at start", .computeHeavy)
struct SequentialDesignStartTests {
    @Test func aDesignLongerThanMaxSessionsOrWithTooManyLooksStopsTheGateway() throws {
        var configuration = BraidConfiguration()
        configuration.interleaving.arms = [.init(name: "draft", weight: 100, mode: .teamDraft, sequential: .init(maxSessions: 500))]
        try configuration.validate()
        let error = #expect(throws: ConfigurationError.self) { try configuration.experimentDesigns() }
        #expect(error?.message.hasPrefix("interleaving.arms.draft.sequential.max_sessions: the design for margin 0.1") == true, "\(error?.message ?? "")")
        configuration.interleaving.arms = [.init(name: "draft", weight: 100, mode: .teamDraft, sequential: .init(lookEvery: 1))]
        let looks = #expect(throws: ConfigurationError.self) { try configuration.experimentDesigns() }
        #expect(looks?.message.hasPrefix("interleaving.arms.draft.sequential.look_every: 1 gives more than 200 looks") == true, "\(looks?.message ?? "")")
        configuration.interleaving.arms = [.init(name: "draft", weight: 100, mode: .teamDraft, sequential: .init(maxSessions: 5_000))]
        _ = try configuration.experimentDesigns()
    }
}
