import BraidConfig
import BraidContracts
import BraidCore
import BraidGateway
import BraidPrecompute
import BraidTestSupport
import BraidWiring
import Foundation
import HummingbirdTesting
import Synchronization
import Testing

/// A walk over Elasticsearch, which cannot run here: the gateway (real Redis) against a stand-in
/// `_search` endpoint answering from a fixture index. What is under test is what the gateway
/// asks Elasticsearch on each page of a walk and what the cursors carry.
@Suite("Walks over Elasticsearch (fixture index)", .serialized, .integration)
struct ElasticsearchWalkTests {
    /// A fixture index: documents by id with a score, changed by the test between pages.
    final class FixtureIndex: Sendable {
        let documents = Mutex<[String: Double]>([:])

        init(count: Int) {
            documents.withLock { documents in
                for number in 0..<count { documents[String(format: "d%03d", number)] = Double(1_000 - number) }
            }
        }

        /// Applies the body's `must_not` and `filter` ids, sorts by score then id, pages by `from`/`size`.
        func answer(_ body: JSONValue) -> Data {
            let query = body["query"]?["function_score"]?["query"] ?? body["query"]
            func ids(_ clause: String) -> Set<String>? {
                guard case .array(let clauses)? = query?["bool"]?[clause] else { return nil }
                return Set(clauses.flatMap { clause -> [String] in
                    guard case .array(let values)? = clause["ids"]?["values"] else { return [] }
                    return values.compactMap(\.stringValue)
                })
            }
            let excluded = ids("must_not") ?? []
            let only = ids("filter")
            let all: [String: Double] = documents.withLock { $0 }
            var matches: [(key: String, value: Double)] = []
            for (id, score) in all where !excluded.contains(id) && (only?.contains(id) ?? true) {
                matches.append((id, score))
            }
            matches.sort { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            let from = Int(body["from"]?.numberValue ?? 0)
            let size = Int(body["size"]?.numberValue ?? 10)
            let page = matches.dropFirst(from).prefix(size)
            let hits = page.map { #"{"_id": "\#($0.key)", "_score": \#($0.value), "_source": {"title": "Curry \#($0.key)"}}"# }
            return Data(#"{"hits": {"total": {"value": \#(matches.count), "relation": "eq"}, "hits": [\#(hits.joined(separator: ","))]}}"#.utf8)
        }
    }

    struct Sent {
        var mustNot: Set<String>
        var filter: Set<String>?
        var from: Int
        var size: Int
    }

    static func sent(_ request: TinyHTTPServer.Request) throws -> Sent {
        let body = try JSONValue.parse(request.body)
        let bool = (body["query"]?["function_score"]?["query"] ?? body["query"])?["bool"]
        func ids(_ clause: String) -> Set<String>? {
            guard case .array(let clauses)? = bool?[clause] else { return nil }
            return Set(clauses.flatMap { clause -> [String] in
                guard case .array(let values)? = clause["ids"]?["values"] else { return [] }
                return values.compactMap(\.stringValue)
            })
        }
        return Sent(
            mustNot: ids("must_not") ?? [], filter: ids("filter"), from: Int(body["from"]?.numberValue ?? -1),
            size: Int(body["size"]?.numberValue ?? -1))
    }

    @Test("Each page asks for A's top without B and without what the walk showed; the same cursor asks for its page's ids; cursors carry the walk")
    func walkRequestsAndCursors() async throws {
        let fixture = try await WorkerFixture(documents: 50, users: 5)
        let index = FixtureIndex(count: 40)
        let server = try await TinyHTTPServer.start { request in
            guard request.uri.hasSuffix("/recipes/_search"), let body = try? JSONValue.parse(request.body) else {
                return .init(status: 404, body: Data("{}".utf8))
            }
            return .init(status: 200, body: index.answer(body))
        }
        var configuration = GatewayHarness.configuration(fixture)
        configuration.search.source = .elasticsearch
        configuration.search.elasticsearch.url = server.baseURL
        configuration.interleaving.arms = []
        configuration.rankings["featured"]?.size = 4
        let codec = CursorCodec(key: configuration.gateway.cursorKey)
        let keys = configuration.redis.cacheKeys
        try await GatewayHarness.with(configuration) { client, gateway in
            func items(_ page: JSONBody) -> [(id: String, team: String)] {
                (page["items"] as? [[String: Any]] ?? []).map { ($0["id"] as? String ?? "?", $0["team"] as? String ?? "?") }
            }
            let first = try await client.json("/v1/search?q=curry&per_page=6&session=e1")
            try #require(first.status == 200, "\(first.object)")
            #expect(first["walk"] as? String == "exact")
            let placed = Set(items(first).filter { $0.team == "B" }.map(\.id))
            let shown1 = items(first).filter { $0.team == "A" }.map(\.id)
            // B: the snapshot's four documents (the whole snapshot is placed).
            let sentSoFar = try server.requests.map(Self.sent)
            #expect(placed.count == 3 && sentSoFar.contains { $0.size == 4 && $0.mustNot.isEmpty })

            // Page 1 wrote nothing; its A documents travel in its cursor.
            let cursor1 = try #require(first["next_cursor"] as? String)
            let walk1 = try #require(try codec.decodeSearch(cursor1).walk)
            #expect(walk1.mode == .recorded && walk1.page == 2 && walk1.aBase == 0)
            #expect(walk1.firstPageIDs == shown1.sorted())
            let store = WalkStore(redis: gateway.redis, keys: keys, maxBytes: 4_096)
            #expect(try await store.read(walk1.id) == nil)

            // Page 2: A's top without B's documents and page 1's, from 0.
            var before = server.requests.count
            let second = try await client.json("/v1/search?q=curry&cursor=\(cursor1)")
            try #require(second.status == 200, "\(second.object)")
            let asked2 = try server.requests.dropFirst(before).map(Self.sent)
            #expect(asked2.count == 1)
            let allPlaced = placed.union(items(second).filter { $0.team == "B" }.map(\.id))
            #expect(asked2.first?.mustNot == allPlaced.union(shown1), "\(String(describing: asked2.first?.mustNot))")
            let shown2 = items(second).filter { $0.team == "A" }.map(\.id)
            #expect(shown2.count == 5, "one B slot left, then A only")
            #expect(asked2.first?.from == 0 && asked2.first?.size == shown2.count && asked2.first?.filter == nil)
            let cursor2 = try #require(second["next_cursor"] as? String)
            let walk2 = try #require(try codec.decodeSearch(cursor2).walk)
            #expect(walk2.id == walk1.id && walk2.page == 3 && walk2.firstPageIDs == nil)
            #expect(try await store.read(walk1.id)?.pages.map(\.ids) == [shown1, shown2])

            // The index changes: a new top document, and one not shown yet deleted.
            let unshown = try #require(index.documents.withLock { documents in
                documents.keys.sorted().first { !allPlaced.contains($0) && !shown1.contains($0) && !shown2.contains($0) }
            })
            index.documents.withLock { documents in
                documents["new"] = 5_000
                documents[unshown] = nil
            }
            before = server.requests.count
            let third = try await client.json("/v1/search?q=curry&cursor=\(cursor2)")
            try #require(third.status == 200, "\(third.object)")
            let asked3 = try server.requests.dropFirst(before).map(Self.sent)
            #expect(asked3.first?.mustNot.isSuperset(of: Set(shown1 + shown2)) == true)
            let shown3 = items(third).filter { $0.team == "A" }.map(\.id)
            #expect(shown3.contains("new") && !shown3.contains(unshown))
            let walked = items(first) + items(second) + items(third)
            #expect(Set(walked.map(\.id)).count == walked.count, "a document twice: \(walked.map(\.id))")

            // Page 3 again: its own documents by id, the same page, the same next cursor.
            before = server.requests.count
            let again = try await client.json("/v1/search?q=curry&cursor=\(cursor2)")
            let asked = try server.requests.dropFirst(before).map(Self.sent)
            #expect(asked.count == 1 && asked.first?.filter == Set(shown3), "\(asked.map(\.filter))")
            #expect(items(again).map(\.id) == items(third).map(\.id))
            #expect(again["walk"] as? String == "exact")
            #expect(again["next_cursor"] as? String == third["next_cursor"] as? String)

            // Page 2 again, page 1's documents still in its cursor: computed as new, then the page
            // recorded first is served (by id, as the index changed since).
            before = server.requests.count
            let secondAgain = try await client.json("/v1/search?q=curry&cursor=\(cursor1)")
            #expect(try server.requests.dropFirst(before).map(Self.sent).last?.filter == Set(shown2))
            #expect(items(secondAgain).map(\.id) == items(second).map(\.id))
        }
        try await server.stop()
    }
}
