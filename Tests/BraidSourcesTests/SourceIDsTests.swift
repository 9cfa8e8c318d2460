import BraidCore
@testable import BraidSources
import BraidTestSupport
import Foundation
import Logging
import NIOPosix
import SQLiteNIO
import Testing

/// ``SearchRequest/ids``: how a walk serves a page again, with its documents' current fields,
/// less those deleted or no longer matching since. Each source restricts to them; a version 1
/// HTTP service that cannot is answered around.
@Suite("Sources restricted to ids")
struct SourceIDsTests {
    @Test func sqliteReturnsTheNamedDocumentsThatStillExistAndMatch() async throws {
        try await CorpusFixture.withCorpus { path in
            let source = SQLiteSearchSource(path: path)
            let top = try await source.search(SearchRequest(query: "curry", size: 8)).hits
            try #require(top.count == 8)
            let named = [top[5].id, top[1].id, top[3].id, top[6].id, "r999999"]
            let before = try await source.search(SearchRequest(query: "curry", size: 20, needsTotal: false, ids: named))
            // Ranked as usual, only the named documents that exist.
            #expect(before.hits.map(\.id) == [top[1].id, top[3].id, top[5].id, top[6].id])
            #expect(before.hits.first?.fields == top[1].fields)
            let counted = try await source.search(SearchRequest(query: "curry", excluding: [top[3].id], size: 0, ids: named))
            #expect(counted.total == 3)

            // Another program deletes one and edits another out of the query's matches.
            let writer = try await SQLiteConnection.open(storage: .file(path: path), logger: Logger(label: "test"))
            _ = try await writer.query("DELETE FROM recipes WHERE id = ?", [.text(top[1].id)])
            _ = try await writer.query("UPDATE recipes SET title = 'Plain bread', ingredients = 'flour', category = 'side' WHERE id = ?", [.text(top[5].id)])
            _ = try await writer.query("INSERT INTO recipes_fts(recipes_fts) VALUES ('rebuild')", [])
            try await writer.close()
            let after = try await source.search(SearchRequest(query: "curry", size: 20, needsTotal: false, ids: named))
            #expect(after.hits.map(\.id) == [top[3].id, top[6].id])
            #expect(try await source.search(SearchRequest(query: "curry", size: 5, ids: [])).hits.isEmpty)
            try await source.shutdown()
        }
    }

    /// Within `busy_timeout` (sqlite-nio's own handler spins a thread for as long as the lock is held).
    @Test func sqliteWaitsForAnotherWritersLockInsteadOfFailing() async throws {
        try await CorpusFixture.withCorpus { path in
            let source = SQLiteSearchSource(path: path)
            // Another program: its own threads (waiting readers hold the shared pool's threads).
            let threads = NIOThreadPool(numberOfThreads: 1)
            threads.start()
            let writer = try await SQLiteConnection.open(
                storage: .file(path: path), threadPool: threads, logger: Logger(label: "test"), on: MultiThreadedEventLoopGroup.singleton.any())
            // An exclusive lock, held for a moment: readers (whose connections open meanwhile) must
            // wait, not fail.
            _ = try await writer.query("BEGIN EXCLUSIVE", [])
            _ = try await writer.query("UPDATE recipes SET popularity = popularity + 1 WHERE seq = 1", [])
            async let search: Result<SearchResult, any Error> = {
                do { return .success(try await source.search(SearchRequest(query: "rice", size: 3))) } catch { return .failure(error) }
            }()
            try? await Task.sleep(for: .milliseconds(300))
            _ = try? await writer.query("COMMIT", [])
            try await writer.close()
            try await threads.shutdownGracefully()
            let result = await search
            #expect(try result.get().hits.count == 3)
            try await source.shutdown()
        }
    }

    @Test func elasticsearchFiltersByIDs() {
        let body = ElasticsearchQuery().body(for: SearchRequest(query: "curry rice", excluding: ["r1"], size: 30, ids: ["r7", "r3"]))
        #expect(body["query"]?["bool"]?["filter"] == .array([.object(["ids": .object(["values": .array(["r7", "r3"])])])]))
        #expect(body["query"]?["bool"]?["must_not"] == .array([.object(["ids": .object(["values": .array(["r1"])])])]))
        #expect(ElasticsearchQuery().body(for: SearchRequest(query: "curry rice"))["query"]?["bool"]?["filter"] == nil)
    }

    @Test func theHTTPContractSendsIDsOnlyWhenSetAndSaysItsVersion() async throws {
        let plain = String(decoding: try RankingServiceContract.encode(SearchRequest(query: "rice", size: 2)), as: UTF8.self)
        #expect(!plain.contains("ids"))
        let named = String(decoding: try RankingServiceContract.encode(SearchRequest(query: "rice", size: 2, ids: ["r2", "r1"])), as: UTF8.self)
        #expect(named.contains(#""ids":["r2","r1"]"#))
        let server = try await TinyHTTPServer.start { _ in .init(status: 200, body: Data(#"{"total": 0, "hits": []}"#.utf8)) }
        _ = try await HTTPRankingSource(url: server.baseURL + "/rank").search(SearchRequest(query: "rice"))
        try await server.stop()
        #expect(server.requests.first?.headers["braid-ranking-contract"] == "2")
    }

    /// A version 1 service that validates its input refuses `ids`: the source asks again without.
    @Test func aVersion1ServiceThatRefusesIDsIsAskedAgainWithoutThem() async throws {
        let server = try await TinyHTTPServer.start { request in
            let body = String(decoding: request.body, as: UTF8.self)
            return body.contains("\"ids\"")
                ? .init(status: 400, body: Data(#"{"error": "unknown field ids"}"#.utf8))
                : .init(status: 200, body: Data(#"{"total": 9, "hits": [{"id": "r5"}, {"id": "r2"}, {"id": "r8"}]}"#.utf8))
        }
        let source = HTTPRankingSource(url: server.baseURL + "/rank")
        let result = try await source.search(SearchRequest(query: "rice", excluding: ["r1"], size: 10, needsTotal: false, ids: ["r2", "r9"]))
        // Not a real restriction: the caller keeps the named ones among what comes back.
        #expect(result.hits.map(\.id) == ["r5", "r2", "r8"])
        try await server.stop()
        let bodies = server.requests.map { String(decoding: $0.body, as: UTF8.self) }
        #expect(bodies.count == 2 && bodies[0].contains("\"ids\"") && !bodies[1].contains("\"ids\""), "\(bodies)")

        // Any other failure is the failure: not asked again.
        let failing = try await TinyHTTPServer.start { _ in .init(status: 500, body: Data("{}".utf8)) }
        let error = await #expect(throws: SearchSourceError.self) {
            try await HTTPRankingSource(url: failing.baseURL + "/rank").search(SearchRequest(query: "rice", ids: ["r2"]))
        }
        try await failing.stop()
        #expect(error?.status == 500)
        #expect(failing.requests.count == 1)
    }
}
