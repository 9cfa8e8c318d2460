import BraidConfig
import BraidContracts
import BraidCore
import BraidGateway
import BraidPrecompute
import BraidRedis
import BraidTestSupport
import BraidWiring
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// Interleaved feed components as experiment traffic, end to end: the page's impression id
/// sits outside its items and names the component, a 304 brings a new one, and the worker
/// credits the experiment and the component (`surfaces` of the outcome).
@Suite("Interleaving inside feeds", .serialized, .integration)
struct FeedExperimentTests {
    static let impressionHeader = HTTPField.Name("Braid-Impression-Id")!

    /// A `rice` snapshot of `featured` (the demo's `more` component) of documents the live
    /// ranking does not have, so both teams draft on every page.
    static func publishSnapshot(_ redis: RedisClient, keys: CacheKeys) async throws {
        let now = Date()
        _ = try await PrecomputeStore(redis: redis, keys: keys).publish(
            RankingSnapshot(
                ranking: "featured", query: QueryNormalizer.normalize("rice"), version: Int64(now.timeIntervalSince1970 * 1000),
                createdAt: now.addingTimeInterval(-30), requestID: "rice-1",
                documents: (1...40).map { RankingSnapshot.Document(id: "rice-b\($0)", score: Double(100 - $0), fields: ["title": .string("B \($0)")]) }),
            ttlSeconds: 86_400, graceSeconds: 60)
    }

    static func position(_ page: JSONBody, team: String) throws -> Int {
        let items = try #require(page["items"] as? [[String: Any]], "\(page.object)")
        return try #require(items.first { $0["team"] as? String == team }?["position"] as? Int, "no \(team) item: \(items)")
    }

    @Test("A component page's id is outside its items and names the component; a 304 brings a new one; credit lands on the experiment and the component")
    func componentPagesAreExperimentTraffic() async throws {
        let fixture = try await WorkerFixture(documents: 300, users: 5)
        var configuration = GatewayHarness.configuration(fixture)
        configuration.interleaving.arms = [.init(name: "feed-exp", weight: 100, mode: .teamDraft)]
        let worker = try await fixture.startWorker("feed-exp-worker")
        defer { worker.signal(SIGTERM) }
        let impressionKey = configuration.gateway.impressionKey
        let keys = configuration.redis.cacheKeys
        try await GatewayHarness.with(configuration) { client, gateway in
            let codec = ImpressionCodec(key: impressionKey)
            try await Self.publishSnapshot(gateway.redis, keys: keys)
            let path = "/v1/feeds/home/components/more?user=u00001"

            // The body's id and the header's are the same, and name the component.
            let raw = try await client.get(path)
            let first = try JSONBody(raw)
            #expect(first.status == 200 && first["source"] as? String == "interleaved", "\(first.object)")
            let firstID = try #require(first["impression_id"] as? String, "an interleaved page without impression_id: \(first.object)")
            #expect(raw.headers[Self.impressionHeader] == firstID)
            let token = try codec.decode(firstID)
            #expect(token.component == FeedComponentName(feed: "home", component: "more") && token.formatVersion == 5)
            #expect(token.experiment == "feed-exp" && token.offset == 0 && token.slotTeams.count == 20)
            #expect(token.userKey == codec.userKey(user: nil, session: "u00001"), "anonymous: keyed by the feed's user as the session")
            #expect(!(token.creditWindow ?? 0..<0).isEmpty, "the first page is inside the credit window")

            // The ETag is the items' hash alone (the state hash): the id is outside them, and
            // two pages with different ids have the same ETag.
            let etag = try #require(raw.headers[.eTag])
            #expect(etag == "\"\(try #require(first["state_hash"] as? String))\"")
            let second = try await client.get(path)
            #expect(second.headers[.eTag] == etag)
            let secondID = try #require(second.headers[Self.impressionHeader])
            #expect(secondID != firstID, "every page is a new impression")

            // A 304 has no body, so its id comes in the header: a third impression.
            let revalidated = try await client.get(path, headers: [.ifNoneMatch: etag])
            #expect(revalidated.status == .notModified && revalidated.body.readableBytes == 0)
            let revalidatedID = try #require(revalidated.headers[Self.impressionHeader], "a 304 without an impression id")
            #expect(![firstID, secondID].contains(revalidatedID))
            #expect(try codec.decode(revalidatedID).component == token.component)

            // Page 2 carries the same component, its own offset and the same credit window rules.
            let cursor = try #require(first["next_cursor"] as? String)
            let page2 = try await client.json("\(path)&cursor=\(encoded(cursor))")
            let page2Token = try codec.decode(try #require(page2["impression_id"] as? String, "\(page2.object)"))
            #expect(page2Token.offset == 20 && page2Token.component == token.component)

            // batchGet's entry carries it too.
            let batch = try JSONBody(try await client.execute(
                uri: "/v1/feeds/home/components:batchGet", method: .post,
                body: ByteBuffer(string: #"{"user":"u00001","components":["banner","more"]}"#)))
            let entries = try #require(batch["components"] as? [[String: Any]], "\(batch.object)")
            #expect(entries.first?["impression_id"] == nil, "a banner is no experiment")
            let batchID = try #require(entries.last?["impression_id"] as? String, "\(entries)")
            #expect(try codec.decode(batchID).component == token.component)

            // A search page of the same experiment: no component.
            let search = try await client.json("/v1/search?q=curry&per_page=10&session=s-search")
            let searchID = try #require(search["impression_id"] as? String, "\(search.object)")
            #expect(try codec.decode(searchID).component == nil && codec.decode(searchID).formatVersion == 4)

            // B wins on the first component page, the 304's impression is a tie, B wins on search.
            let events: [[String: Any]] = [
                ["type": "impression", "impression_id": firstID],
                ["type": "click", "impression_id": firstID, "position": try Self.position(first, team: "B")],
                ["type": "impression", "impression_id": revalidatedID],
                ["type": "impression", "impression_id": searchID],
                ["type": "click", "impression_id": searchID, "position": try Self.position(search, team: "B")],
            ]
            let accepted = try await EvidenceTests.post(client, events)
            #expect(accepted.status == 202 && accepted["accepted"] as? Int == 5, "\(accepted.object)")
            let outcome = try await EvidenceTests.outcome(client, "feed-exp") { $0["impressions"] as? Int == 3 && $0["wins_b"] as? Int == 2 }
            #expect(outcome["ties"] as? Int == 1 && outcome["wins_a"] as? Int == 0, "\(outcome.object)")
            let surfaces = try #require(outcome["surfaces"] as? [[String: Any]], "\(outcome.object)")
            #expect(surfaces.compactMap { $0["surface"] as? String } == ["search", "home/more"], "\(surfaces)")
            func counts(_ surface: String) -> [Int] {
                let entry = surfaces.first { $0["surface"] as? String == surface } ?? [:]
                return ["impressions", "wins_a", "wins_b", "ties"].map { entry[$0] as? Int ?? -1 }
            }
            #expect(counts("search") == [1, 0, 1, 0], "\(surfaces)")
            #expect(counts("home/more") == [2, 0, 1, 1], "\(surfaces)")
        }
    }

    @Test("A signed-in user's component ids are keyed by that user: evidence from them only")
    func verifiedUsersComponentIds() async throws {
        let fixture = try await WorkerFixture(documents: 300, users: 5)
        let issuer = try await TestTokenIssuer()
        var configuration = try IdentityRouteTests.jwtConfiguration(fixture, issuer)
        configuration.interleaving.arms = [.init(name: "feed-bound", weight: 100, mode: .teamDraft)]
        let impressionKey = configuration.gateway.impressionKey
        let keys = configuration.redis.cacheKeys
        try await GatewayHarness.with(configuration) { client, gateway in
            let codec = ImpressionCodec(key: impressionKey)
            try await Self.publishSnapshot(gateway.redis, keys: keys)
            let alice = try await issuer.token(for: "u00001")
            let bob = try await issuer.token(for: "u00002")
            let page = try JSONBody(try await client.get("/v1/feeds/home/components/more", headers: [.authorization: "Bearer \(alice)"]))
            let id = try #require(page["impression_id"] as? String, "\(page.object)")
            let token = try codec.decode(id)
            #expect(token.userKey.map { codec.isKey($0, of: "u00001") } == true, "the id is alice's")
            let impression: [[String: Any]] = [["type": "impression", "impression_id": id]]
            #expect(try await EvidenceTests.post(client, impression, token: bob).status == 403)
            #expect(try await EvidenceTests.post(client, impression, token: nil).status == 403)
            #expect(try await EvidenceTests.post(client, impression, token: alice).status == 202)
        }
    }
}
