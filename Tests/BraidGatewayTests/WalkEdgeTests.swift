import BraidConfig
import BraidContracts
import BraidCore
import BraidGateway
import BraidPrecompute
import BraidRedis
import BraidSources
import BraidTestSupport
import BraidWiring
import Foundation
import HummingbirdTesting
import Testing

/// The walk's edges, one at a time, through the real gateway and Redis: A running out before B,
/// a record gone or full, page 1's documents too long for its cursor, and walks begun with
/// `page=k`.
@Suite("Walk edges", .serialized, .integration)
struct WalkEdgeTests {
    /// A gateway on one plain AB arm over `fixture`, whose corpus gains `extra` recipes first.
    static func configuration(_ fixture: WorkerFixture, bSize: Int = 20) -> BraidConfiguration {
        var configuration = GatewayHarness.configuration(fixture)
        configuration.interleaving.arms = []
        configuration.rankings["featured"]?.size = bSize
        return configuration
    }

    static func recipes(_ word: String, count: Int, prefix: String = "z") -> [CorpusRecipe] {
        (0..<count).map { CorpusRecipe(id: "\(prefix)\($0)", title: "\(word.capitalized) Cake \($0)", ingredients: ["flour"], popularity: $0 * 10) }
    }

    struct Walked {
        var pages: [JSONBody] = []
        var items: [(id: String, team: String, position: Int)] { pages.flatMap(Self.items) }
        static func items(_ page: JSONBody) -> [(id: String, team: String, position: Int)] {
            (page["items"] as? [[String: Any]] ?? []).map { ($0["id"] as? String ?? "?", $0["team"] as? String ?? "?", $0["position"] as? Int ?? -1) }
        }
    }

    static func page(_ client: any TestClientProtocol, _ uri: String) async throws -> JSONBody {
        let page = try await client.json(uri)
        try #require(page.status == 200, "\(uri): \(page.object)")
        return page
    }

    @Test("A walk whose A runs out before B keeps B's places when documents arrive afterwards; documents arriving earlier are shown")
    func aRunsOutBeforeB() async throws {
        let fixture = try await WorkerFixture(documents: 100, users: 5)
        try await CorpusWriter.add(Self.recipes("zebra", count: 30), path: fixture.corpus.path)
        try await GatewayHarness.with(Self.configuration(fixture)) { client, _ in
            var walk = Walked()
            walk.pages.append(try await Self.page(client, "/v1/search?q=zebra&per_page=6&session=z1"))
            #expect(walk.pages[0]["total"] as? Int == 30)
            // Arrives before A runs out: shown later in the walk.
            try await CorpusWriter.add([CorpusRecipe(id: "early", title: "Zebra Zebra Zebra Cake")], path: fixture.corpus.path)
            var late = false
            while let cursor = walk.pages.last?["next_cursor"] as? String {
                try #require(walk.pages.count < 50)
                walk.pages.append(try await Self.page(client, "/v1/search?q=zebra&cursor=\(cursor)"))
                let teams = walk.items.map(\.team)
                // Two B documents in a row: A has run out. Documents arriving now are not shown.
                if !late, zip(teams, teams.dropFirst()).contains(where: { $0 == "B" && $1 == "B" }) {
                    try await CorpusWriter.add(
                        (0..<5).map { CorpusRecipe(id: "late\($0)", title: "Zebra Zebra Zebra Zebra Cake \($0)") }, path: fixture.corpus.path)
                    late = true
                }
            }
            #expect(late, "A never ran out before B")
            let ids = walk.items.map(\.id)
            #expect(Set(ids).count == ids.count, "shown twice: \(ids)")
            #expect(walk.items.map(\.position) == Array(0..<ids.count))
            #expect(ids.contains("early"))
            #expect(!ids.contains { $0.hasPrefix("late") })
            #expect(Set(ids) == Set((0..<30).map { "z\($0)" } + ["early"]))
            #expect(walk.items.filter { $0.team == "B" }.count == 20)
            #expect(walk.pages.allSatisfy { $0["walk"] as? String == "exact" })
        }
    }

    @Test("A walk whose first pages' totals are lower bounds (the Xapian source stopped counting) ends exactly at its last document, where the total is exact")
    func aWalkWithLowerBoundTotalsEndsAtItsLastDocument() async throws {
        let fixture = try await WorkerFixture(documents: 4_000, users: 5)
        var configuration = Self.configuration(fixture)
        configuration.search.xapian.countAtLeast = 1_000
        let truth = SQLiteSearchSource(path: fixture.corpus.path)
        let matches = try await truth.search(SearchRequest(query: "main onion", size: 0)).total
        try await truth.shutdown()
        try #require(matches > 1_500, "the query should match well past count_at_least")
        try await GatewayHarness.with(configuration) { client, _ in
            var walk = Walked()
            walk.pages.append(try await Self.page(client, "/v1/search?q=main+onion&per_page=100&session=lb"))
            while let cursor = walk.pages.last?["next_cursor"] as? String {
                try #require(walk.pages.count < 40)
                walk.pages.append(try await Self.page(client, "/v1/search?q=main+onion&cursor=\(cursor)"))
            }
            let ids = walk.items.map(\.id)
            #expect(walk.pages.first?["total_is_lower_bound"] as? Bool == true)
            #expect((walk.pages.first?["total"] as? Int ?? 0) >= 100 + 1_000)
            // Every match once (B's documents are matches of the same query), and the last
            // page's total is the list's length, said to be exact.
            #expect(Set(ids).count == ids.count)
            #expect(ids.count == matches)
            #expect(walk.pages.last?["total"] as? Int == matches)
            #expect(walk.pages.last?["total_is_lower_bound"] as? Bool == false)
            #expect(walk.pages.allSatisfy { $0["walk"] as? String == "exact" })
        }
    }

    @Test("A walk whose record is gone goes on by offset and says so; one whose record is full too")
    func lostAndCappedRecords() async throws {
        let fixture = try await WorkerFixture(documents: 400, users: 5)
        let configuration = Self.configuration(fixture)
        let keys = configuration.redis.cacheKeys
        let codec = CursorCodec(key: configuration.gateway.cursorKey)
        try await GatewayHarness.with(configuration) { client, gateway in
            let first = try await Self.page(client, "/v1/search?q=rice&per_page=5&session=l1")
            let second = try await Self.page(client, "/v1/search?q=rice&cursor=\(try #require(first["next_cursor"] as? String))")
            #expect(second["walk"] as? String == "exact")
            let cursor = try #require(second["next_cursor"] as? String)
            let walk = try #require(try codec.decodeSearch(cursor).walk)
            #expect(try await gateway.redis.del([keys.walk(walk.id)]) == 1)
            let third = try await Self.page(client, "/v1/search?q=rice&cursor=\(cursor)")
            #expect(third["walk"] as? String == "lost")
            let fourth = try await Self.page(client, "/v1/search?q=rice&cursor=\(try #require(third["next_cursor"] as? String))")
            #expect(fourth["walk"] as? String == "lost")
            // Nothing else changed, so offset paging still shows each document once.
            let ids = [first, second, third, fourth].flatMap(Walked.items).map(\.id)
            #expect(Set(ids).count == ids.count)
        }
        var small = configuration
        small.gateway.walkMaxBytes = 20
        try await GatewayHarness.with(small) { client, _ in
            var pages = [try await Self.page(client, "/v1/search?q=rice&per_page=6&session=c1")]
            while pages.count < 4, let cursor = pages.last?["next_cursor"] as? String {
                pages.append(try await Self.page(client, "/v1/search?q=rice&cursor=\(cursor)"))
            }
            // Page 2 was planned from the whole walk but could not be recorded: the rest is by offset.
            #expect(pages.map { $0["walk"] as? String ?? "?" } == ["exact", "exact", "capped", "capped"])
        }
    }

    @Test("Page 1's documents too long for a cursor begin the record at once; the cursor stays short")
    func longIDsBeginTheRecordOnPage1() async throws {
        let fixture = try await WorkerFixture(documents: 100, users: 5)
        // Ids with nothing in common (front coding packs alike ones small): 90 do not fit a cursor.
        let recipes = (0..<150).map { CorpusRecipe(id: UUID().uuidString + "-\($0)", title: "Quokka Cake \($0)", popularity: $0) }
        try await CorpusWriter.add(recipes, path: fixture.corpus.path)
        let configuration = Self.configuration(fixture, bSize: 10)
        let codec = CursorCodec(key: configuration.gateway.cursorKey)
        try await GatewayHarness.with(configuration) { client, gateway in
            let first = try await Self.page(client, "/v1/search?q=quokka&per_page=100&session=q1")
            let cursor = try #require(first["next_cursor"] as? String)
            #expect(cursor.utf8.count <= CursorCodec.maxTextLength)
            let walk = try #require(try codec.decodeSearch(cursor).walk)
            #expect(walk.firstPageIDs == nil && walk.mode == .recorded)
            let store = WalkStore(redis: gateway.redis, keys: configuration.redis.cacheKeys, maxBytes: 1 << 20)
            #expect(try await store.read(walk.id)?.pages.first?.ids.count == 90)
            let second = try await Self.page(client, "/v1/search?q=quokka&cursor=\(cursor)")
            #expect(second["walk"] as? String == "exact")
            let ids = [first, second].flatMap(Walked.items).map(\.id)
            #expect(Set(ids).count == ids.count && ids.count == 150)
        }
    }

    @Test("A walk begun with page=k goes on exactly from there: its pages are those page=k+1, k+2, … give on an unchanged corpus")
    func walksBegunAtPageK() async throws {
        let fixture = try await WorkerFixture(documents: 400, users: 5)
        try await GatewayHarness.with(Self.configuration(fixture)) { client, _ in
            let third = try await Self.page(client, "/v1/search?q=rice&per_page=5&page=3&session=k1")
            #expect(third["walk"] as? String == "offset")
            var cursor = try #require(third["next_cursor"] as? String)
            for number in 4...7 {
                let walked = try await Self.page(client, "/v1/search?q=rice&cursor=\(cursor)")
                let alone = try await Self.page(client, "/v1/search?q=rice&per_page=5&page=\(number)&session=k1")
                #expect(walked["walk"] as? String == "exact")
                #expect(Walked.items(walked).map(\.id) == Walked.items(alone).map(\.id), "page \(number)")
                cursor = try #require(walked["next_cursor"] as? String)
            }
        }
    }
}

/// A cold page whose prefix comes up short reads the rest in a second query: a document that
/// moves into the list between the two must not bring one of the prefix's documents back.
@Suite("Cold pages under churn", .serialized, .integration)
struct ColdPageChurnTests {
    /// The real SQLite source; right after the first prefix query (nothing excluded) answers,
    /// a new top-ranked recipe is written, before the gateway asks for the rest.
    final class InsertingSource: SearchSource {
        let base: SQLiteSearchSource
        let inserted = Countdown(0)

        init(base: SQLiteSearchSource) {
            self.base = base
        }

        func search(_ request: SearchRequest) async throws -> SearchResult {
            let result = try await base.search(request)
            if request.excluding.isEmpty, request.size > 0, inserted.value == 0 {
                inserted.countUp()
                try await CorpusWriter.add([CorpusRecipe(id: "newcomer", title: "Rice Rice Rice Rice")], path: base.path)
            }
            return result
        }
    }

    @Test("A short prefix's rest is read without the prefix's documents")
    func theRestOfAShortPrefixBringsNothingBack() async throws {
        try await ColdPageTests.withCorpus(documents: 600) { gateway, store, sqlite, materializer in
            // A snapshot larger than the ranking's configured size: the prefix's spare room is too small.
            _ = try await materializer.materialize(
                .init(ranking: "featured", query: "rice", size: 150), id: UUID().uuidString, ttlSeconds: nil, requestedAt: Date())
            let recorder = ColdPageTests.Recorder()
            let source = InsertingSource(base: sqlite)
            let cold = ColdPageTests.service(
                gateway, store: store, source: ColdPageTests.DelayingSource(base: source, delay: .zero, recorder: recorder), cold: true)
            let page = try await cold.page(SearchParameters(query: "rice", perPage: 40, session: "c1"))
            let events = recorder.all.map(\.what)
            try #require(events.contains { $0.hasPrefix("live prefix") } && source.inserted.value == 1, "\(events)")
            try #require(events.contains { $0.hasPrefix("live range") && !$0.hasSuffix("+0") }, "the prefix was not short: \(events)")
            let ids = page.items.map(\.id)
            #expect(Set(ids).count == ids.count, "shown twice: \(ids)")
            #expect(ids.count == 40)
        }
    }
}
