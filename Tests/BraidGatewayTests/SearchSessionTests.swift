import BraidConfig
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

    /// Follows a session from page 1 to its last page and checks the concatenation.
    /// Returns the snapshot version the session was pinned to.
    @discardableResult
    static func paginate(
        _ session: SessionPlan, client: any TestClientProtocol, expected: [String: Set<String>], pause: Duration? = nil
    ) async throws -> Int64? {
        var uri = "/v1/search?q=\(encoded(session.query))&per_page=\(session.perPage)&session=\(session.id)"
        var ids: [String] = []
        var positions: [Int] = []
        var teams: [String] = []
        var pinned: Int64?
        var pages = 0
        while true {
            let page = try await client.json(uri)
            try #require(page.status == 200, "session \(session.id) page \(pages + 1): \(page.object)")
            let items = try #require(page["items"] as? [[String: Any]])
            let interleaving = try #require(page["interleaving"] as? [String: Any])
            let snapshot = (interleaving["snapshot"] as? NSNumber)?.int64Value
            if pages == 0 { pinned = snapshot } else { try #require(snapshot == pinned, "session \(session.id) changed snapshot") }
            #expect(page["degraded"] as? Bool == false)
            for item in items {
                ids.append(try #require(item["id"] as? String))
                positions.append(try #require(item["position"] as? Int))
                teams.append("\(item["team"] as? String ?? "?")\(item["source"] as? String == "cached" ? "c" : "l")")
            }
            pages += 1
            guard let next = page["next_cursor"] as? String else {
                try #require(items.count <= session.perPage)
                break
            }
            try #require(items.count == session.perPage, "session \(session.id): a non-final page of \(items.count) items")
            try #require(pages < 2_000, "session \(session.id) does not end")
            uri = "/v1/search?q=\(encoded(session.query))&cursor=\(next)&session=\(session.id)"
            if let pause { try await Task.sleep(for: pause) }
        }
        let all = try #require(expected[session.query])
        try #require(positions == Array(0..<positions.count), "session \(session.id): positions are not 0..<n")
        let repeated = Dictionary(grouping: ids.indices, by: { ids[$0] }).filter { $0.value.count > 1 }
        try #require(
            repeated.isEmpty,
            "session \(session.id) (\(session.query), per_page \(session.perPage)): duplicates \(repeated.map { id, at in "\(id) at \(at.map { "\($0)\(teams[$0])" })" })")
        try #require(Set(ids) == all, "session \(session.id) (\(session.query), per_page \(session.perPage)): \(all.subtracting(ids).count) missing, \(Set(ids).subtracting(all).count) unexpected")
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
