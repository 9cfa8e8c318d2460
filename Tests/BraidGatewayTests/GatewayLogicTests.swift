@testable import BraidGateway
import BraidCore
import BraidConfig
import BraidContracts
import BraidWiring
import BraidSources
import Testing

/// The gateway's pure pieces, without servers.
@Suite("Gateway logic")
struct GatewayLogicTests {
    @Test("The live total is bounded by what the backend actually returned")
    func effectiveTotal() {
        // Fewer hits than asked for: A ends right after them, whatever the reported total says
        // (a count read after a deletion may be smaller, but every hit returned is shown).
        #expect(PageAssembler.effectiveTotal(reported: 50, from: 10, requested: 5, received: 3) == 13)
        #expect(PageAssembler.effectiveTotal(reported: 11, from: 10, requested: 5, received: 3) == 13)
        // A full answer: at least what was returned.
        #expect(PageAssembler.effectiveTotal(reported: 12, from: 10, requested: 5, received: 5) == 15)
        #expect(PageAssembler.effectiveTotal(reported: 90, from: 10, requested: 5, received: 5) == 90)
        // A page of B slots only asks for nothing and learns only the reported total.
        #expect(PageAssembler.effectiveTotal(reported: 0, from: 2, requested: 0, received: 0) == 0)
        #expect(PageAssembler.effectiveTotal(reported: 7, from: 2, requested: 0, received: 0) == 7)
        // A page that starts a list (page=k) past the end: the list ends where the backend says.
        #expect(PageAssembler.effectiveTotal(reported: 1_823, from: 19_980, requested: 20, received: 0, startsList: true) == 1_823)
        // A cursor's page past the end keeps the positions its walk showed: it ends at its offset.
        #expect(PageAssembler.effectiveTotal(reported: 1_823, from: 19_980, requested: 20, received: 0) == 19_980)
        // A count that says more than an empty answer holds: the list ends at the page.
        #expect(PageAssembler.effectiveTotal(reported: 30_000, from: 19_980, requested: 20, received: 0, startsList: true) == 19_980)
    }

    @Test("Items take A from the live hits and B from the snapshot, by planned index")
    func assembly() throws {
        let configuration = try InterleavingConfiguration(pattern: [.a, .b])
        let plan = PagePlanner(configuration: configuration, bCount: 2, aTotal: 3, seed: 0).plan(offset: 1, size: 4)
        let hits = [SearchHit(id: "a1", score: 1), SearchHit(id: "a2", score: 1)]
        let documents = [RankingSnapshot.Document(id: "b0", score: 2), RankingSnapshot.Document(id: "b1", score: 2)]
        let items = PageAssembler.items(plan: plan, hits: hits, hitsFrom: plan.aRange.lowerBound, documents: documents)
        #expect(items.map(\.id) == ["b0", "a1", "b1", "a2"])
        #expect(items.map(\.position) == [1, 2, 3, 4])
        #expect(items.map(\.source) == [.cached, .live, .cached, .live])
    }

    @Test("Query strings: plus is a space, percent-escapes decode, the first value wins, bad escapes are refused")
    func queryString() throws {
        let parsed = try QueryString.parse("q=curry+rice&q=other&x=%E3%82%AB%E3%83%AC%E3%83%BC&flag")
        #expect(parsed == ["q": "curry rice", "x": "カレー", "flag": ""])
        #expect(throws: GatewayError.self) { try QueryString.parse("q=%ZZ") }
        #expect(try QueryString.parse("a%20b=%2B1%2fx+y&c=%e2%82%ac") == ["a b": "+1/x y", "c": "€"])
        for malformed in ["q=%4", "q=%", "q=a%E3%82", "q=%FF", "%G1=x"] {
            #expect(throws: GatewayError.self, "\(malformed)") { try QueryString.parse(malformed) }
        }
    }

    @Test("If-None-Match: lists, weak tags and * match; others do not")
    func etags() {
        #expect(ETag.matches("\"a\", \"b\"", etag: "\"b\""))
        #expect(ETag.matches("W/\"b\"", etag: "\"b\""))
        #expect(ETag.matches("*", etag: "\"b\""))
        #expect(!ETag.matches("\"c\"", etag: "\"b\""))
    }

    @Test("Arms: a session always gets the same arm; weights split sessions; an unknown ranking is a 400")
    func arms() throws {
        var configuration = BraidConfiguration()
        configuration.interleaving.arms = [.init(name: "ab", weight: 30), .init(name: "draft", weight: 70, mode: .teamDraft)]
        try configuration.validate()
        let selector = try configuration.armSelector()
        let names = (0..<1_000).map { try! selector.arm(session: "s\($0)", ranking: nil).name }
        #expect(names == (0..<1_000).map { try! selector.arm(session: "s\($0)", ranking: nil).name })
        let drafts = names.filter { $0 == "draft" }.count
        #expect((600...800).contains(drafts), "\(drafts) of 1000 sessions in a 70 % arm")
        #expect(try selector.arm(session: "s1", ranking: "fresh").ranking == "fresh")
        #expect(throws: GatewayError.self) { try selector.arm(session: "s1", ranking: "missing") }
    }
}

@Suite("Pointer cache")
struct PointerCacheTests {
    @Test("A pointer is reused within its TTL only; a zero TTL never reuses")
    func ttl() async throws {
        let key = SnapshotReader.Key(ranking: "featured", query: "curry", version: 0)
        let cache = PointerCache(ttl: .milliseconds(200))
        #expect(cache.version(for: key) == nil)
        cache.remember(42, for: key)
        #expect(cache.version(for: key) == 42)
        try await Task.sleep(for: .milliseconds(300))
        #expect(cache.version(for: key) == nil)
        let off = PointerCache(ttl: .zero)
        off.remember(42, for: key)
        #expect(off.version(for: key) == nil)
    }
}
