import BraidConfig
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// The gateway with Redis (and Kafka) unreachable from the start: search pages are served
/// live-only and say `degraded: true`, never a 5xx; feeds fall back to the live corpus;
/// `/readyz` says why it is not ready. In process, over a seeded corpus; no server.
@Suite("Gateway with Redis unreachable", .timeLimit(.minutes(5)))
struct DegradedGatewayTests {
    static func items(_ page: JSONBody) -> [[String: Any]] { page["items"] as? [[String: Any]] ?? [] }

    @Test func searchPagesAreLiveOnlyAndDegradedAndTheirCursorsCarryOn() async throws {
        try await OfflineGateway.with { client, _ in
            let first = try await client.json("/v1/search?q=chicken&per_page=5&session=s1")
            #expect(first.status == 200, "\(first.object)")
            #expect(first["degraded"] as? Bool == true)
            let firstItems = Self.items(first)
            #expect(firstItems.count == 5)
            #expect(firstItems.allSatisfy { $0["team"] as? String == "A" }, "live-only: no snapshot to interleave")
            #expect(firstItems.compactMap { $0["position"] as? Int } == Array(0..<5))
            #expect((first["interleaving"] as? [String: Any])?["snapshot"] is NSNull)

            // The cursor pins a live-only session: it carries on without Redis, at the next positions.
            let cursor = try #require(first["next_cursor"] as? String)
            let second = try await client.json("/v1/search?q=chicken&cursor=\(cursor)&session=s1")
            #expect(second.status == 200, "\(second.object)")
            let secondItems = Self.items(second)
            #expect(secondItems.compactMap { $0["position"] as? Int } == Array(5..<10))
            #expect(secondItems.allSatisfy { $0["team"] as? String == "A" })
            let ids = (firstItems + secondItems).compactMap { $0["id"] as? String }
            #expect(Set(ids).count == 10, "no recipe twice across the pages")
            #expect(second["degraded"] as? Bool == false, "a live-only session needs no Redis")

            // Classic pagination reads the snapshot pointer again: degraded again.
            let classic = try await client.json("/v1/search?q=chicken&per_page=5&page=2&session=s2")
            #expect(classic.status == 200, "\(classic.object)")
            #expect(classic["degraded"] as? Bool == true)
            #expect(Self.items(classic).compactMap { $0["id"] as? String } == secondItems.compactMap { $0["id"] as? String })
        }
    }

    @Test func readinessNamesRedisAndLivenessStaysUp() async throws {
        try await OfflineGateway.with { client, _ in
            let ready = try await client.json("/readyz")
            #expect(ready.status == 503)
            let checks = try #require(ready["checks"] as? [String: String])
            #expect(checks["redis"] != nil && checks["redis"] != "ok", "\(checks)")
            #expect(try await client.json("/healthz").status == 200)
        }
    }

    /// Feed contents are read from the cache first; with Redis gone every component is
    /// served live from the corpus (a single one, and a batch), none fails the request.
    @Test func feedComponentsFallBackToTheLiveCorpus() async throws {
        try await OfflineGateway.with { client, _ in
            let single = try await client.json("/v1/feeds/home/components/recommended?user=u00002")
            #expect(single.status == 200, "\(single.object)")
            #expect(single["source"] as? String == "live")
            #expect(!Self.items(single).isEmpty)

            let body = #"{"user":"u00002","components":["carousel","recommended","popular-dessert"]}"#
            let response = try await client.execute(uri: "/v1/feeds/home/components:batchGet", method: .post, body: ByteBuffer(string: body))
            let batch = try JSONBody(response)
            #expect(batch.status == 200, "\(batch.object)")
            let components = try #require(batch["components"] as? [[String: Any]])
            #expect(components.compactMap { $0["component"] as? String } == ["carousel", "recommended", "popular-dessert"])
            for component in components {
                let status = component["status"] as? String
                #expect(status == "ready" || status == "pending", "\(component)")
                if status == "ready" { #expect(component["source"] as? String == "live", "\(component)") }
            }
            #expect(components.contains { $0["status"] as? String == "ready" }, "the corpus still answers")
        }
    }

    /// With the live backend gone too there is nothing to serve: that is a 503 with a JSON
    /// error, and a batch answers pending for every component instead of failing.
    @Test func withoutRedisAndWithoutTheCorpusSearchIsA503AndABatchIsPending() async throws {
        try await OfflineGateway.with(configure: { $0.search.sqlite.path += ".missing" }) { client, _ in
            let page = try await client.json("/v1/search?q=chicken&per_page=5")
            #expect(page.status == 503, "\(page.object)")
            #expect(page.errorCode != nil)
            let body = #"{"user":"u00002","components":["recommended"],"timeout_ms":10000}"#
            let batch = try JSONBody(try await client.execute(uri: "/v1/feeds/home/components:batchGet", method: .post, body: ByteBuffer(string: body)))
            #expect(batch.status == 200, "\(batch.object)")
            #expect((batch["components"] as? [[String: Any]])?.compactMap { $0["status"] as? String } == ["pending"])
        }
    }
}
