import BraidConfig
import BraidContracts
import BraidCore
import BraidGateway
import BraidSources
import BraidTestSupport
import BraidWiring
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing

/// The walk guarantee under churn, through the real gateway and the real Redis: concurrent
/// walks with random page sizes, while another program inserts, deletes and edits recipes in
/// the SQLite corpus (and rebuilds its full-text indexes) between and during their pages. Each
/// walk is checked by ``WalkTrace/violations(_:codec:requireExact:)`` against what the corpus
/// matched when.
@Suite("Walks under churn", .serialized, .integration)
struct WalkPropertyTests {
    static let queries = ["curry", "chicken", "soup", "cake", "pasta", "rice", "カレー"]

    /// Two-ranking arms (pattern and team-draft) and a multileave arm: sessions land in all three.
    static func configuration(_ fixture: WorkerFixture) -> BraidConfiguration {
        var configuration = GatewayHarness.configuration(fixture)
        configuration.interleaving.arms = [
            .init(name: "ab", weight: 34),
            .init(name: "draft", weight: 33, start: 3, maxDocs: 15, mode: .teamDraft),
            .init(name: "multi", weight: 33, maxDocs: 6, mode: .teamDraft, multileave: ["featured", "fresh"]),
        ]
        return configuration
    }

    @Test(
        "Concurrent walks while the SQLite corpus changes under them: nothing twice, nothing matching skipped, nothing deleted shown, the same cursor the same page (the Xapian index that serves by default, and the corpus's FTS5)",
        arguments: [SearchSourceKind.xapian, .sqlite])
    func embeddedWalksKeepTheGuarantee(source: SearchSourceKind) async throws {
        let fixture = try await WorkerFixture(documents: 1_500, users: 10)
        var configuration = Self.configuration(fixture)
        configuration.search.source = source
        let (traces, churn) = try await GatewayHarness.with(configuration) { client, _ in
            try await Self.walkUnderChurn(client: client, corpus: fixture.corpus.path, walks: 16, seed: 1)
        }
        let codec = CursorCodec(key: configuration.gateway.cursorKey)
        let violations = traces.flatMap { $0.violations(churn, codec: codec, requireExact: true) }
        #expect(violations.isEmpty, "\(violations.count) violations:\n\(violations.prefix(20).joined(separator: "\n"))")
        try Self.expectRealChurn(traces, churn)
    }

    @Test("With walk records off (offset paging), the same churn shows documents twice or skips them: the check has teeth")
    func offsetPagingBreaksUnderTheSameChurn() async throws {
        let fixture = try await WorkerFixture(documents: 1_500, users: 10)
        var configuration = Self.configuration(fixture)
        configuration.gateway.walkMaxBytes = 0
        let (traces, churn) = try await GatewayHarness.with(configuration) { client, _ in
            try await Self.walkUnderChurn(client: client, corpus: fixture.corpus.path, walks: 16, seed: 1)
        }
        let codec = CursorCodec(key: configuration.gateway.cursorKey)
        let violations = traces.flatMap { $0.violations(churn, codec: codec, requireExact: false) }
        #expect(violations.contains { $0.contains("shown twice") || $0.contains("never shown") }, "offset paging kept the guarantee: \(violations.prefix(5))")
        #expect(traces.allSatisfy { $0.pages.allSatisfy { $0.walk == "offset" } })
    }

    @Test("A churn writer cancelled mid-run, as when a walk fails, closes its connection instead of crashing the test process")
    func aCancelledChurnClosesItsConnection() async throws {
        let fixture = try await WorkerFixture(documents: 200, users: 5)
        let churn = CorpusChurn(path: fixture.corpus.path, queries: Self.queries)
        try await churn.start()
        let writer = Task { try await churn.run(seed: 3) { false } }
        try await Task.sleep(for: .milliseconds(300))
        writer.cancel()
        let result = await writer.result
        #expect(throws: (any Error).self) { try result.get() }
        await churn.shutdown()
    }

    @Test("The same property for an HTTP ranking service on loopback, answering from the changing corpus")
    func httpServiceWalksKeepTheGuarantee() async throws {
        let fixture = try await WorkerFixture(documents: 1_500, users: 10)
        let sqlite = SQLiteSearchSource(path: fixture.corpus.path)
        defer { Task { try? await sqlite.shutdown() } }
        let requestsWithIDs = Countdown(0)
        let router = Router()
        router.post("/rank") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 4 << 20)
            let wanted = try JSONDecoder().decode(RankingServiceContract.Request.self, from: Data(body.readableBytesView))
            if wanted.ids != nil { requestsWithIDs.countUp() }
            let result = try await sqlite.search(SearchRequest(
                query: wanted.query, excluding: wanted.excluding, from: wanted.from, size: wanted.size,
                profile: try #require(RankingProfile(rawValue: wanted.profile)), ids: wanted.ids))
            var writer = JSONWriter()
            try writer.writeObject([
                "total": .number(Double(result.total)),
                "hits": .array(result.hits.map { .object(["id": .string($0.id), "score": .number($0.score), "fields": .object($0.fields)]) }),
            ])
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: writer.bytes)))
        }
        let configuration = Self.configuration(fixture)
        let (traces, churn) = try await Application(router: router).test(.live) { service in
            var http = configuration
            http.search.source = .http
            http.search.http.url = "http://127.0.0.1:\(try #require(service.port))/rank"
            http.search.timeout = .milliseconds(5_000)
            return try await GatewayHarness.with(http) { client, _ in
                try await Self.walkUnderChurn(client: client, corpus: fixture.corpus.path, walks: 12, seed: 2)
            }
        }
        let codec = CursorCodec(key: configuration.gateway.cursorKey)
        let violations = traces.flatMap { $0.violations(churn, codec: codec, requireExact: true) }
        #expect(violations.isEmpty, "\(violations.count) violations:\n\(violations.prefix(20).joined(separator: "\n"))")
        try Self.expectRealChurn(traces, churn)
        #expect(requestsWithIDs.value > 0, "no page was served again through the service")
    }

    /// The churn really ran under the walks, and the walks were long enough to meet it.
    static func expectRealChurn(_ traces: [WalkTrace], _ churn: CorpusChurn) throws {
        let versions = churn.log.count - 1
        let pages = traces.map(\.pages.count).reduce(0, +)
        let repeats = traces.map(\.repeats.count).reduce(0, +)
        #expect(versions >= 20, "only \(versions) writes")
        #expect(pages >= 200, "only \(pages) pages")
        #expect(repeats >= 10, "only \(repeats) pages asked for again")
        print("walks: \(traces.count), pages: \(pages), pages asked again: \(repeats), writes: \(versions), arms: \(traces.map(\.arm).sorted())")
        // Two-ranking pattern and team-draft walks, and multileaved ones.
        #expect(Set(traces.map(\.arm)) == ["ab", "draft", "multi"], "\(traces.map(\.arm))")
        let changedUnderAWalk = traces.filter { trace in
            guard let first = trace.pages.first, let last = trace.pages.last else { return false }
            return churn.versions(during: first.started...last.ended).count > 3
        }.count
        #expect(changedUnderAWalk >= traces.count / 2, "only \(changedUnderAWalk) of \(traces.count) walks saw the corpus change")
    }

    /// Runs `walks` walks at once (random query, page size and pauses; some pages asked for
    /// again, at once or at the walk's end) while a ``CorpusChurn`` writes to `corpus`.
    static func walkUnderChurn(
        client: any TestClientProtocol, corpus: String, walks: Int, seed: UInt64
    ) async throws -> ([WalkTrace], CorpusChurn) {
        let churn = CorpusChurn(path: corpus, queries: queries)
        try await churn.start()
        let remaining = Countdown(walks)
        let traces = try await withThrowingTaskGroup(of: WalkTrace?.self) { group in
            group.addTask {
                _ = try await churn.run(seed: seed) { remaining.isDone }
                return nil
            }
            for index in 0..<walks {
                group.addTask {
                    defer { remaining.countDown() }
                    var random = SplitMixForTests(seed: seed &* 1_000 &+ UInt64(index))
                    return try await walk(
                        "walk \(seed)-\(index)", query: queries[index % queries.count], perPage: Int.random(in: 1...25, using: &random),
                        client: client, random: &random)
                }
            }
            var traces: [WalkTrace] = []
            for try await trace in group { if let trace { traces.append(trace) } }
            return traces
        }
        await churn.shutdown()
        return (traces, churn)
    }

    static func walk(
        _ name: String, query: String, perPage: Int, client: any TestClientProtocol, random: inout SplitMixForTests
    ) async throws -> WalkTrace {
        var trace = WalkTrace(name: "\(name) (\(query), per_page \(perPage))", query: query, perPage: perPage)
        var cursor: String?
        while true {
            let page = try await fetch(query: query, perPage: perPage, cursor: cursor, session: name, client: client)
            trace.pages.append(page)
            trace.arm = page.arm
            if cursor != nil, Int.random(in: 0..<8, using: &random) == 0 {
                trace.repeats.append((trace.pages.count - 1, try await fetch(query: query, perPage: perPage, cursor: cursor, session: name, client: client)))
            }
            guard let next = page.nextCursor else { break }
            try #require(trace.pages.count < 3_000, "\(trace.name) does not end")
            cursor = next
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...12, using: &random)))
        }
        // A page from deep in the record, once more churn has gone by.
        if trace.pages.count > 2 {
            let number = Int.random(in: 1..<trace.pages.count, using: &random)
            let again = try await fetch(query: query, perPage: perPage, cursor: trace.pages[number].cursor, session: name, client: client)
            trace.repeats.append((number, again))
        }
        return trace
    }

    static func fetch(
        query: String, perPage: Int, cursor: String?, session: String, client: any TestClientProtocol
    ) async throws -> WalkTrace.Page {
        let uri = cursor.map { "/v1/search?q=\(encoded(query))&cursor=\($0)&session=\(encoded(session))" }
            ?? "/v1/search?q=\(encoded(query))&per_page=\(perPage)&session=\(encoded(session))"
        let started = ContinuousClock.now
        let body = try await client.json(uri)
        let ended = ContinuousClock.now
        try #require(body.status == 200, "\(uri): \(body.object)")
        let items = try #require(body["items"] as? [[String: Any]]).map { item in
            WalkTrace.Item(id: item["id"] as? String ?? "?", position: item["position"] as? Int ?? -1, team: item["team"] as? String ?? "?")
        }
        return WalkTrace.Page(
            started: started, ended: ended, items: items, nextCursor: body["next_cursor"] as? String,
            walk: body["walk"] as? String ?? "?", cursor: cursor, arm: (body["interleaving"] as? [String: Any])?["arm"] as? String ?? "?")
    }
}

/// A count shared by tasks.
final class Countdown: Sendable {
    private let count: Mutex<Int>
    init(_ count: Int) { self.count = Mutex(count) }
    var value: Int { count.withLock { $0 } }
    var isDone: Bool { value <= 0 }
    func countDown() { count.withLock { $0 -= 1 } }
    func countUp() { count.withLock { $0 += 1 } }
}
