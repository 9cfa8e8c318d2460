import BraidConfig
import BraidContracts
import BraidCore
import BraidGateway
import BraidKafka
import BraidPrecompute
import BraidRedis
import BraidSources
import BraidTestSupport
import BraidWiring
import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

/// Whole sessions through `GET /v1/search`: every page of a session, concatenated, is
/// A ∪ B exactly once, also while workers refresh the snapshots the sessions started on.
@Suite("Search sessions", .serialized, .integration)
struct SearchSessionTests {
    static let queries = ["curry", "pasta", "salmon", "cake", "miso soup", "bread", "カレー", "soup", "tomato", "egg"]

    @Test(
        "200 random sessions paginated to the end: no duplicate, no gap, nothing missing (on one Redis, over TLS, and on a Redis Cluster)",
        arguments: FixtureRedis.allCases)
    func sessionsCoverEverythingOnce(redis: FixtureRedis) async throws {
        let fixture = try await WorkerFixture(documents: 400, users: 20, redis: redis)
        let configuration = GatewayHarness.configuration(fixture)
        try await GatewayHarness.with(configuration) { client, gateway in
            #expect(gateway.redis.isCluster == (redis == .cluster))
            let expected = try await Self.matches(of: Self.queries, corpus: fixture.corpus.path)
            var generator = SeededGenerator(seed: 42)
            let sessions = (0..<200).map { index in
                SessionPlan(
                    id: "s\(index)", query: Self.queries.randomElement(using: &generator)!,
                    perPage: Int.random(in: 1...50, using: &generator))
            }
            for session in sessions {
                try await Self.paginate(session, client: client, expected: expected)
            }
        }
    }

    @Test("Sessions stay exact while a worker refreshes their snapshots to other sizes")
    func sessionsSurviveConcurrentRefreshes() async throws {
        let fixture = try await WorkerFixture(documents: 400, users: 20)
        let configuration = GatewayHarness.configuration(fixture)
        let worker = try await fixture.startWorker("refresh-worker")
        defer { worker.signal(SIGTERM) }
        try await GatewayHarness.with(configuration) { [configuration] client, gateway in
            let expected = try await Self.matches(of: Self.queries, corpus: fixture.corpus.path)
            let publisher = RequestPublisher(producer: gateway.producer, topic: fixture.requestsTopic)
            let store = PrecomputeStore(redis: gateway.redis, keys: configuration.redis.cacheKeys)
            // The worker keeps replacing every query's snapshot with versions of other sizes,
            // so a page not pinned to its session's snapshot would duplicate or skip documents.
            let versions = Mutex<[String: Set<Int64>]>([:])
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    var round = 0
                    while !Task.isCancelled {
                        round += 1
                        for query in Self.queries {
                            let size = [5, 12, 25, 40][round % 4]
                            try await publisher.send(PrecomputeRequest(body: .ranking(.init(ranking: "featured", query: query, size: size))))
                        }
                        try await Task.sleep(for: .milliseconds(150))
                    }
                }
                // Not timed: the worker joining its group (a few seconds on the local broker).
                let deadline = ContinuousClock.now + .seconds(60)
                while try await store.currentVersion(ranking: "featured", query: "curry") == nil {
                    try #require(ContinuousClock.now < deadline, "the worker never materialized a refresh")
                    try await Task.sleep(for: .milliseconds(100))
                }
                var generator = SeededGenerator(seed: 7)
                var refreshedDuringSession = 0
                for index in 0..<200 {
                    let session = SessionPlan(
                        id: "r\(index)", query: Self.queries.randomElement(using: &generator)!,
                        perPage: Int.random(in: 1...50, using: &generator))
                    let pinned = try await Self.paginate(session, client: client, expected: expected, pause: .milliseconds(5))
                    if let pinned { _ = versions.withLock { $0[session.query, default: []].insert(pinned) } }
                    let current = try await store.currentVersion(ranking: "featured", query: session.query)
                    if current != pinned { refreshedDuringSession += 1 }
                }
                group.cancelAll()
                // The refreshes really happened under the sessions' feet.
                #expect(refreshedDuringSession >= 20, "only \(refreshedDuringSession) sessions saw their snapshot replaced")
            }
            let pinnedVersions = versions.withLock { $0.values.map(\.count).reduce(0, +) }
            #expect(pinnedVersions > Self.queries.count * 2, "sessions pinned only \(pinnedVersions) versions")
        }
    }

    struct SessionPlan {
        var id: String
        var query: String
        var perPage: Int
    }

    /// Follows a session from page 1 to its last page (``SessionWalker``, through the router)
    /// and checks the concatenation. Returns the snapshot version the session was pinned to.
    @discardableResult
    static func paginate(
        _ session: SessionPlan, client: any TestClientProtocol, expected: [String: Set<String>], pause: Duration? = nil
    ) async throws -> Int64? {
        var walker = SessionWalker(queries: [session.query]) { path in
            if let pause { try? await Task.sleep(for: pause) }
            do {
                let response = try await client.get(path)
                let body = Data(String(buffer: response.body).utf8)
                let status = Int(response.status.code)
                return (status, body, status == 200 ? nil : "\(status): \(String(decoding: body, as: UTF8.self))")
            } catch {
                return (0, Data(), "\(error)")
            }
        }
        walker.perPage = session.perPage
        let walked = await walker.walk(query: session.query, session: session.id, maxPages: 2_000)
        let name = "session \(session.id) (\(session.query), per_page \(session.perPage))"
        try #require(walked.completed, "\(name): \(walked.problems)")
        try #require(walked.visits.last?.page?.nextCursor == nil, "\(name) does not end")
        let pinned = walked.visits.first?.snapshot
        try #require(walked.visits.allSatisfy { $0.snapshot == pinned }, "\(name) changed snapshot")
        #expect(walked.visits.allSatisfy { !$0.degraded })
        try #require(!walked.hasGap, "\(name): positions are not 0..<n, or a non-final page is short")
        try #require(walked.visits.allSatisfy { ($0.page?.items.count ?? 0) <= session.perPage }, "\(name): a page longer than per_page")
        let items = walked.visits.flatMap { $0.page?.items ?? [] }
        let repeated = Dictionary(grouping: items.indices, by: { items[$0].id }).filter { $0.value.count > 1 }
        try #require(
            !walked.hasDuplicates,
            "\(name): duplicates \(repeated.map { id, at in "\(id) at \(at.map { "\($0)\(items[$0].team ?? "?")\(items[$0].source == "cached" ? "c" : "l")" })" })")
        let all = try #require(expected[session.query])
        let ids = Set(walked.ids)
        try #require(ids == all, "\(name): \(all.subtracting(ids).count) missing, \(ids.subtracting(all).count) unexpected")
        return pinned
    }

    /// Every document matching each query (A ∪ B: B is made of matches of the same corpus).
    static func matches(of queries: [String], corpus: String) async throws -> [String: Set<String>] {
        let source = SQLiteSearchSource(path: corpus)
        defer { Task { try? await source.shutdown() } }
        var result: [String: Set<String>] = [:]
        for query in queries {
            let all = try await source.search(SearchRequest(query: query, from: 0, size: SearchRequest.maxSize))
            try #require(all.total < SearchRequest.maxSize)
            try #require(all.total > 0, "no document matches \(query)")
            result[query] = Set(all.hits.map(\.id))
        }
        return result
    }
}
