import BraidCore
import BraidGateway
import BraidSources
import BraidTestSupport
import BraidWiring
import Foundation
import Logging
import Synchronization
import Testing

@testable import BraidGateway

@Suite("Broad searches wait in line", .serialized, .integration)
struct BroadSearchTests {
    /// The real SQLite source, each call held for `delay`, recording which queries run at once
    /// (one page may make two calls at once: a query counts once however many of its calls run).
    final class CountingSource: SearchSource {
        let base: any SearchSource
        let delay: Duration
        private let state = Mutex<(running: [String: Int], mostBroad: Int, narrowBesideBroad: Bool)>(([:], 0, false))

        init(base: any SearchSource, delay: Duration) {
            self.base = base
            self.delay = delay
        }

        var mostBroadAtOnce: Int { state.withLock { $0.mostBroad } }
        var narrowRanBesideBroad: Bool { state.withLock { $0.narrowBesideBroad } }

        func search(_ request: SearchRequest) async throws -> SearchResult {
            state.withLock { state in
                state.running[request.query, default: 0] += 1
                let broad = state.running.keys.filter(FTSMatchExpression.isBroad).count
                state.mostBroad = max(state.mostBroad, broad)
                if broad > 0, state.running.keys.contains(where: { !FTSMatchExpression.isBroad($0) }) { state.narrowBesideBroad = true }
            }
            defer {
                state.withLock { state in
                    state.running[request.query, default: 1] -= 1
                    if state.running[request.query] == 0 { state.running[request.query] = nil }
                }
            }
            try await Task.sleep(for: delay)
            return try await base.search(request)
        }
    }

    @Test("Broad queries run one at a time while a normal query runs beside them, and every one is answered")
    func broadQueriesRunOneAtATime() async throws {
        try await ColdPageTests.withCorpus(documents: 400) { gateway, store, sqlite, _ in
            let source = CountingSource(base: sqlite, delay: .milliseconds(150))
            let search = gateway.routes.search
            let service = SearchService(
                arms: search.arms, snapshots: SnapshotReader(store: store, nearCacheBytes: 0, pointerTTL: .zero),
                misses: search.misses, source: source, codec: search.codec, impressions: search.impressions,
                cursorTTLSeconds: 600, liveTimeout: .seconds(30), broadSearchConcurrency: 1, logger: Logger(label: "test"))
            let queries = ["c rice", "ch", "c s p b m", "curry", "c"]
            let pages = try await withThrowingTaskGroup(of: SearchPage.self) { group in
                for (index, query) in queries.enumerated() {
                    group.addTask {
                        // The normal query comes while the broad ones are in line.
                        if query == "curry" { try await Task.sleep(for: .milliseconds(50)) }
                        return try await service.page(SearchParameters(query: query, perPage: 10, session: "b\(index)"))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(pages.count == queries.count)
            #expect(source.mostBroadAtOnce == 1, "broad queries ran \(source.mostBroadAtOnce) at once")
            #expect(source.narrowRanBesideBroad, "the normal query waited for the broad ones")
            #expect(pages.contains { $0.query == "curry" && !$0.items.isEmpty })
        }
    }
}
