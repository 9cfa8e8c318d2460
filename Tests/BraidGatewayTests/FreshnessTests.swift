import BraidConfig
import BraidContracts
import BraidCore
import BraidGateway
import BraidPrecompute
import BraidTestSupport
import BraidWiring
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// Credit by the age of B's snapshot, end to end: the page's impression id carries the age of
/// the snapshot it showed, the event carries it to the worker, and the outcome's `freshness`
/// counts the impression in its bucket.
@Suite("Freshness of the cached side", .serialized, .integration)
struct FreshnessTests {
    @Test("Wins of B from a two-hour-old snapshot and a minute-old one, and an older id's tie, land in their age buckets")
    func creditByAge() async throws {
        let fixture = try await WorkerFixture(documents: 300, users: 5)
        var configuration = GatewayHarness.configuration(fixture)
        configuration.interleaving.arms = [.init(name: "fresh-exp", weight: 100, mode: .teamDraft)]
        // Two hours old is not yet due for a refresh: the stale snapshot stays the one served.
        configuration.rankings["featured"]?.refreshAfter = .seconds(86_000)
        let worker = try await fixture.startWorker("freshness-worker")
        defer { worker.signal(SIGTERM) }
        let impressionKey = configuration.gateway.impressionKey
        let keys = configuration.redis.cacheKeys
        try await GatewayHarness.with(configuration) { client, gateway in
            let codec = ImpressionCodec(key: impressionKey)
            let now = Date()
            let store = PrecomputeStore(redis: gateway.redis, keys: keys)
            // Snapshots of documents the live ranking does not have, so both teams draft.
            for (query, age) in [("curry", 7_200.0), ("soup", 60.0)] {
                let created = now.addingTimeInterval(-age)
                _ = try await store.publish(
                    RankingSnapshot(
                        ranking: "featured", query: QueryNormalizer.normalize(query), version: Int64(created.timeIntervalSince1970 * 1000),
                        createdAt: created, requestID: "\(query)-1",
                        documents: (1...5).map { RankingSnapshot.Document(id: "\(query)\($0)", score: Double(10 - $0), fields: ["title": .string("\(query) \($0)")]) }),
                    ttlSeconds: 86_400, graceSeconds: 60)
            }

            func page(_ query: String, session: String) async throws -> (id: String, token: ImpressionToken, items: [[String: Any]]) {
                let page = try await client.json("/v1/search?q=\(query)&per_page=10&session=\(session)")
                let id = try #require(page["impression_id"] as? String, "a team-draft page without impression_id: \(page.object)")
                return (id, try codec.decode(id), try #require(page["items"] as? [[String: Any]]))
            }
            func position(_ items: [[String: Any]], team: String) throws -> Int {
                try #require(items.first { $0["team"] as? String == team }?["position"] as? Int, "no \(team) item: \(items)")
            }
            // The stale snapshot: about two hours old in the id; B is clicked.
            let old = try await page("curry", session: "f1")
            let oldAge = try #require(old.token.snapshotAgeSeconds, "the id carries no age")
            #expect(old.token.formatVersion == 4 && (7_190...7_400).contains(oldAge), "age \(oldAge)")
            // A minute-old snapshot; B is clicked too.
            let fresh = try await page("soup", session: "f2")
            let freshAge = try #require(fresh.token.snapshotAgeSeconds, "the id carries no age")
            #expect((55...300).contains(freshAge), "age \(freshAge)")
            // An id as a gateway of the previous release wrote it (version 3, no age): a tie.
            let v3 = codec.encode(ImpressionToken(
                experiment: "fresh-exp", offset: 0, teams: [.a, .b], creditWindow: 0..<2, nonce: UInt64.random(in: 0...UInt64.max),
                issuedAt: Int64(now.timeIntervalSince1970), userKey: codec.userKey(user: nil, session: "f3")))
            let body = try JSONSerialization.data(withJSONObject: ["events": [
                ["type": "impression", "impression_id": old.id], ["type": "click", "impression_id": old.id, "position": try position(old.items, team: "B")],
                ["type": "impression", "impression_id": fresh.id],
                ["type": "click", "impression_id": fresh.id, "position": try position(fresh.items, team: "B")],
                ["type": "impression", "impression_id": v3],
            ]])
            let accepted = try JSONBody(try await client.execute(uri: "/v1/events", method: .post, body: ByteBuffer(bytes: body)))
            #expect(accepted["accepted"] as? Int == 5, "a version-3 id is still accepted: \(accepted.object)")

            let deadline = ContinuousClock.now + .seconds(60)
            var outcome = try await client.json("/v1/experiments/fresh-exp")
            while outcome["impressions"] as? Int != 3 || outcome["wins_b"] as? Int != 2 {
                try #require(ContinuousClock.now < deadline, "the worker did not credit the events: \(outcome.object)")
                try await Task.sleep(for: .milliseconds(200))
                outcome = try await client.json("/v1/experiments/fresh-exp")
            }
            let buckets = try #require(outcome["freshness"] as? [[String: Any]], "\(outcome.object)")
            #expect(buckets.compactMap { $0["bucket"] as? String } == ["under_15m", "15m_to_1h", "1h_to_6h", "6h_or_more", "unknown"])
            func counts(_ name: String) -> [Int] {
                let bucket = buckets.first { $0["bucket"] as? String == name } ?? [:]
                return ["impressions", "wins_a", "wins_b", "ties"].map { bucket[$0] as? Int ?? -1 }
            }
            #expect(counts("under_15m") == [1, 0, 1, 0], "\(buckets)")
            #expect(counts("15m_to_1h") == [0, 0, 0, 0], "\(buckets)")
            #expect(counts("1h_to_6h") == [1, 0, 1, 0], "\(buckets)")
            #expect(counts("6h_or_more") == [0, 0, 0, 0], "\(buckets)")
            #expect(counts("unknown") == [1, 0, 0, 1], "\(buckets)")
            let hours = try #require(buckets.first { $0["bucket"] as? String == "1h_to_6h" })
            #expect(hours["from_seconds"] as? Int == 3_600 && hours["to_seconds"] as? Int == 21_600, "\(hours)")
            #expect((buckets.last?["from_seconds"]).map { $0 is NSNull } == true, "unknown has no bounds")
        }
    }
}
