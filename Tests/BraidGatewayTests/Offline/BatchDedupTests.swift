import BraidConfig
import BraidCore
import BraidGateway
import BraidSources
import BraidWiring
import Foundation
import Hummingbird
import Logging
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing

/// batchGet loads each distinct name once, on a real gateway whose live provider (the SQLite
/// corpus) is wrapped to count the queries it answers.
@Suite("batchGet deduplicates names", .timeLimit(.minutes(5)))
struct BatchDedupTests {
    /// The gateway's own provider, counting its calls.
    final class CountingProvider: ComponentProvider {
        let base: any ComponentProvider
        let calls = Atomic(0)

        init(base: any ComponentProvider) { self.base = base }

        func items(_ request: ComponentRequest) async throws -> ComponentPage {
            calls.add(1, ordering: .relaxed)
            return try await base.items(request)
        }
    }

    @Test("Twenty copies of one name are one live query, and the answer has twenty identical entries in request order")
    func duplicates() async throws {
        try await OfflineGateway.with { _, gateway in
            let routes = gateway.routes
            let counting = CountingProvider(base: gateway.provider)
            let old = routes.components
            let components = ComponentService(
                feeds: old.feeds, store: old.store, provider: counting, search: old.search, requests: old.requests, codec: old.codec,
                cursorTTLSeconds: old.cursorTTLSeconds, storedItems: old.storedItems, liveTimeout: old.liveTimeout, nearCacheBytes: 1 << 20,
                logger: Logger(label: "test"))
            let counted = GatewayRoutes(
                search: routes.search, components: components, events: routes.events, readiness: routes.readiness,
                defaultPerPage: routes.defaultPerPage, batchTimeout: .seconds(60))
            try await Application(router: counted.router()).test(.router) { client in
                let names = Array(repeating: "\"recommended\"", count: 19) + ["\"creators\""]
                let body = #"{"user":"u00001","components":[\#(names.joined(separator: ","))]}"#
                let response = try JSONBody(try await client.execute(
                    uri: "/v1/feeds/home/components:batchGet", method: .post, body: ByteBuffer(string: body)))
                #expect(response.status == 200, "\(response.object)")
                let results = try #require(response["components"] as? [[String: Any]])
                #expect(results.count == 20)
                #expect(results.compactMap { $0["component"] as? String } == Array(repeating: "recommended", count: 19) + ["creators"])
                #expect(results.allSatisfy { $0["status"] as? String == "ready" })
                let first = try JSONSerialization.data(withJSONObject: results[0], options: [.sortedKeys])
                for result in results.prefix(19) {
                    #expect(try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys]) == first)
                }
                // Two distinct names: two live queries.
                #expect(counting.calls.load(ordering: .relaxed) == 2)
            }
        }
    }
}
