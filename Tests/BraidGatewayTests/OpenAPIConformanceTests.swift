import BraidConfig
import BraidCore
import BraidGateway
import BraidPrecompute
import BraidSources
import BraidTestSupport
import BraidWiring
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import BraidContracts

/// Real gateway responses, validated against `Schemas/openapi.yaml` (the schema of each
/// operation's documented response for the status it returned), so that the document and the
/// gateway cannot drift apart. `make fuzz` checks the same with generated requests.
@Suite("OpenAPI conformance", .serialized, .integration)
struct OpenAPIConformanceTests {
    @Test("The validator refuses bodies that do not conform, and accepts explicit nulls where the document says nullable")
    func validatorCanFail() throws {
        let wrong = Data(#"""
            {"query":"x","page":0,"per_page":5,"items":[{"id":"1","position":0,"team":"C","source":"live"}],
             "next_cursor":5,"interleaving":{"ranking":null,"snapshot":null,"start":0,"pattern":"AB","mode":"pattern"}}
            """#.utf8)
        let nulls = Data(#"""
            {"query":"x","page":1,"per_page":5,"items":[],"next_cursor":null,"total":null,"impression_id":null,
             "interleaving":{"ranking":null,"snapshot":null,"start":0,"pattern":"AB","mode":"pattern","max_docs":null},"degraded":false,
             "walk":"exact"}
            """#.utf8)
        let verdicts = try OpenAPIValidator.validate([
            (wrong, .response(path: "/v1/search", method: "GET", status: 200)),
            (nulls, .response(path: "/v1/search", method: "GET", status: 200)),
            (nulls, .component("SearchPage")),
            (Data(#"{"error":{"code":"x"}}"#.utf8), .response(path: "/v1/search", method: "GET", status: 400)),
            (Data(#"{"error":{"code":"x","message":"y"}}"#.utf8), .response(path: "/v1/search", method: "GET", status: 404)),
            (Data(), .response(path: "/healthz", method: "GET", status: 200)),
            (Data(#"{"status":"ok"}"#.utf8), .component("NoSuchSchema")),
        ])
        let wrongPage = try #require(verdicts[0], "a page with four errors was accepted")
        for error in ["'degraded' is a required property", "'C' is not one of", "5 is not of type", "less than the minimum of 1"] {
            #expect(wrongPage.contains(error), "\(wrongPage)")
        }
        #expect(verdicts[1] == nil, "\(verdicts[1] ?? "")")
        #expect(verdicts[2] == nil, "\(verdicts[2] ?? "")")
        #expect(verdicts[3]?.contains("'message' is a required property") == true, "\(verdicts[3] ?? "accepted")")
        #expect(verdicts[4]?.contains("status 404 is not documented") == true, "\(verdicts[4] ?? "accepted")")
        #expect(verdicts[5]?.contains("not JSON") == true, "\(verdicts[5] ?? "accepted")")
        #expect(verdicts[6]?.contains("no schema") == true, "\(verdicts[6] ?? "accepted")")
    }

    @Test("Search pages, feeds, components, batchGet, events, experiments, errors and health conform to the document")
    func responsesConform() async throws {
        let fixture = try await WorkerFixture(documents: 300, users: 20)
        var recorded: [Recorded] = []

        // A gateway with every dependency up: the two arms of GatewayHarness (pattern and team-draft).
        let configuration = GatewayHarness.configuration(fixture)
        recorded += try await GatewayHarness.with(configuration) { [configuration] client, gateway in
            var out: [Recorded] = []
            func call(
                _ method: HTTPRequest.Method, _ uri: String, _ template: String, headers: HTTPFields = [:], body: String? = nil,
                expect status: Int
            ) async throws -> Recorded {
                let response = try await Recorded.call(client, method, uri, template, headers: headers, body: body, expect: status)
                out.append(response)
                return response
            }

            // Search: a page of each arm (pattern, team-draft with impression_id), then cursor pages to the last one.
            var impressionID: String?
            var modes: Set<String> = []
            for session in (0..<40).map({ "s\($0)" }) where modes.count < 2 {
                let page = try await Recorded.call(client, .get, "/v1/search?q=curry&per_page=5&session=\(session)", "/v1/search", expect: 200)
                let mode = try #require(page.object["interleaving"] as? [String: Any])["mode"] as? String ?? "?"
                guard modes.insert(mode).inserted else { continue }
                out.append(page)
                #expect(page.object["next_cursor"] as? String != nil, "\(page)")
                #expect((page.object["interleaving"] as? [String: Any])?["snapshot"] as? NSNumber != nil, "no snapshot (inline misses): \(page)")
                if mode == "team_draft" { impressionID = page.object["impression_id"] as? String }
                // Follow the cursors to the last page (next_cursor null).
                var cursor = page.object["next_cursor"] as? String
                var pages = 0
                while let next = cursor, pages < 30 {
                    let following = try await call(.get, "/v1/search?q=curry&cursor=\(encoded(next))&session=\(session)", "/v1/search", expect: 200)
                    cursor = following.object["next_cursor"] as? String
                    pages += 1
                }
                #expect(cursor == nil, "no last page after \(pages) pages")
            }
            #expect(modes == ["pattern", "team_draft"], "sessions s0…s39 never reached both arms: \(modes)")
            _ = try await call(.get, "/v1/search?q=chicken&per_page=3&page=2&session=s1", "/v1/search", expect: 200)
            _ = try await call(.get, "/v1/search?q=\(encoded("zzqx nothing matches"))&session=s1", "/v1/search", expect: 200)
            _ = try await call(.get, "/v1/search?q=pasta&ranking=fresh&per_page=100", "/v1/search", expect: 200)
            for uri in [
                "/v1/search", "/v1/search?q=curry&per_page=0", "/v1/search?q=curry&page=abc", "/v1/search?q=curry&cursor=garbage",
                "/v1/search?q=curry&ranking=nope", "/v1/search?q=%ZZ",
            ] {
                _ = try await call(.get, uri, "/v1/search", expect: 400)
            }

            // Feeds: layouts, then cached content (ETag, pages, 304), live content, errors.
            _ = try await call(.get, "/v1/feeds/home?user=u00003", "/v1/feeds/{feed}", expect: 200)
            _ = try await call(.get, "/v1/feeds/profile?user=u00003", "/v1/feeds/{feed}", expect: 200)
            _ = try await call(.get, "/v1/feeds/home", "/v1/feeds/{feed}", expect: 400)
            _ = try await call(.get, "/v1/feeds/nope?user=u00003", "/v1/feeds/{feed}", expect: 404)

            let store = PrecomputeStore(redis: gateway.redis, keys: configuration.redis.cacheKeys)
            let materializer = ComponentMaterializer(
                store: store, provider: gateway.provider, feeds: configuration.materializedFeeds, storedItems: 25)
            _ = try await materializer.materialize(
                .init(feed: "home", type: .recommendedRecipes, scope: ComponentScope(user: "u00003")), ttlSeconds: nil, requestedAt: Date())
            _ = try await materializer.materialize(
                .init(feed: "home", type: .carousel, scope: ComponentScope(segment: "all")), ttlSeconds: nil, requestedAt: Date())
            let content = "/v1/feeds/{feed}/components/{component}"
            let cached = try await call(.get, "/v1/feeds/home/components/recommended?user=u00003", content, expect: 200)
            #expect(cached.object["source"] as? String == "cached", "\(cached)")
            let hash = try #require(cached.object["state_hash"] as? String, "\(cached)")
            #expect(cached.headers[.eTag] == "\"\(hash)\"")
            var cursor = cached.object["next_cursor"] as? String
            #expect(cursor != nil, "\(cached)")
            while let next = cursor {
                let page = try await call(.get, "/v1/feeds/home/components/recommended?user=u00003&cursor=\(encoded(next))", content, expect: 200)
                cursor = page.object["next_cursor"] as? String
            }
            let notModified = try await Recorded.call(
                client, .get, "/v1/feeds/home/components/recommended?user=u00003", content, headers: [.ifNoneMatch: "\"\(hash)\""], expect: 304)
            #expect(notModified.body.isEmpty, "a 304 with a body")
            // Every other kind, materialized by the worker's code path (banners from the
            // configured campaigns), then served: each shape of the document is exercised.
            let kinds: [(String, String, ComponentType, ComponentScope)] = [
                ("home", "creators", .recommendedCreators, .init(user: "u00003")), ("home", "my-week", .userStats, .init(user: "u00002")),
                ("home", "banner", .banner, .init(segment: "all")), ("home", "new-arrivals", .newArrivals, .init(segment: "all")),
                ("profile", "header", .profileHeader, .init(user: "u00002")), ("profile", "tabs", .profileTabs, .init(user: "u00002")),
                ("profile", "cooksnaps", .profileCooksnaps, .init(user: "u00002")), ("profile", "recipes", .profileRecipes, .init(user: "u00002")),
            ]
            for (feed, component, type, scope) in kinds {
                _ = try await materializer.materialize(.init(feed: feed, type: type, scope: scope), ttlSeconds: nil, requestedAt: Date())
                let user = scope.user ?? "u00002"
                let page = try await call(.get, "/v1/feeds/\(feed)/components/\(component)?user=\(user)", content, expect: 200)
                #expect(page.object["source"] as? String == "cached", "\(page)")
                #expect(page.object["type"] as? String == type.rawValue)
            }
            _ = try await call(.get, "/v1/feeds/profile/components/recipes?user=u00002&q=curry", content, expect: 200)
            _ = try await call(.get, "/v1/feeds/profile/components/cooksnaps?user=u00002&q=rice", content, expect: 200)
            _ = try await call(.get, "/v1/feeds/home/components/creators?user=u00002&q=rice", content, expect: 400)
            let interleaved = try await call(.get, "/v1/feeds/home/components/more?user=u00002", content, expect: 200)
            #expect(interleaved.object["source"] as? String == "interleaved", "\(interleaved)")
            let more = try #require(interleaved.object["next_cursor"] as? String, "\(interleaved)")
            _ = try await call(.get, "/v1/feeds/home/components/more?user=u00002&cursor=\(encoded(more))", content, expect: 200)
            _ = try await call(.get, "/v1/feeds/home/components/more?user=u00002&cursor=garbage", content, expect: 400)
            let live = try await call(.get, "/v1/feeds/home/components/following?user=u00005", content, expect: 200)
            #expect(live.object["source"] as? String == "live", "\(live)")
            _ = try await call(.get, "/v1/feeds/profile/components/recipes?user=u00005", content, expect: 200)
            _ = try await call(.get, "/v1/feeds/home/components/recommended", content, expect: 400)
            _ = try await call(.get, "/v1/feeds/home/components/recommended?user=u00003&cursor=garbage", content, expect: 400)
            _ = try await call(.get, "/v1/feeds/home/components/nope?user=u00003", content, expect: 404)

            let batch = "/v1/feeds/{feed}/components:batchGet"
            let batched = try await call(
                .post, "/v1/feeds/home/components:batchGet", batch,
                body: #"{"user":"u00003","components":["carousel","recommended","following","banner","my-week","creators","more"],"timeout_ms":5000}"#,
                expect: 200)
            let statuses = (batched.object["components"] as? [[String: Any]] ?? []).compactMap { $0["status"] as? String }
            #expect(statuses == Array(repeating: "ready", count: 7), "\(batched)")
            _ = try await call(.post, "/v1/feeds/home/components:batchGet", batch, body: #"{"user":"u00003","components":[]}"#, expect: 400)
            _ = try await call(.post, "/v1/feeds/home/components:batchGet", batch, body: "not json", expect: 400)
            _ = try await call(.post, "/v1/feeds/home/components:batchGet", batch, body: #"{"user":"u00003","components":["nope"]}"#, expect: 404)

            // Evaluation: events (with the signed impression id of the team-draft page) and an outcome.
            let impression = try #require(impressionID, "the team-draft page had no impression_id")
            _ = try await call(
                .post, "/v1/events", "/v1/events",
                body: #"{"events":[{"type":"impression","impression_id":"\#(impression)"}]}"#, expect: 202)
            _ = try await call(.post, "/v1/events", "/v1/events", body: #"{"events":[]}"#, expect: 400)
            _ = try await call(.get, "/v1/experiments/draft", "/v1/experiments/{id}", expect: 200)
            _ = try await call(.get, "/v1/experiments/Bad%20Id", "/v1/experiments/{id}", expect: 400)

            _ = try await call(.get, "/healthz", "/healthz", expect: 200)
            _ = try await call(.get, "/readyz", "/readyz", expect: 200)
            let metrics = try await call(.get, "/metrics", "/metrics", expect: 200)
            #expect(metrics.contentType?.hasPrefix("text/plain") == true, "\(metrics.contentType ?? "no Content-Type")")
            // Not a route of the document: still the documented error shape.
            var unknown = try await Recorded.call(client, .get, "/v1/nothing-here", "", expect: 404)
            unknown.target = .component("Error")
            out.append(unknown)
            return out
        }

        // Misses served live (async policy): live-only pages, snapshot and ranking null, and their cursor pages.
        var asyncConfiguration = GatewayHarness.configuration(fixture)
        asyncConfiguration.interleaving.missPolicy = .async
        recorded += try await GatewayHarness.with(asyncConfiguration) { client, _ in
            let first = try await Recorded.call(client, .get, "/v1/search?q=salmon&per_page=4&session=a1", "/v1/search", expect: 200)
            #expect((first.object["interleaving"] as? [String: Any])?["snapshot"] is NSNull, "not live-only: \(first)")
            let cursor = try #require(first.object["next_cursor"] as? String, "\(first)")
            let second = try await Recorded.call(
                client, .get, "/v1/search?q=salmon&cursor=\(encoded(cursor))&session=a1", "/v1/search", expect: 200)
            return [first, second]
        }

        // The live backend unreachable (and no corpus for components): 503s, pending components.
        var downConfiguration = GatewayHarness.configuration(fixture)
        downConfiguration.search.source = .http
        downConfiguration.search.http.url = "http://127.0.0.1:\(try FreePort.find())/rank"
        downConfiguration.search.timeout = .milliseconds(300)
        downConfiguration.search.sqlite.path = fixture.corpus.path + ".missing"
        downConfiguration.gateway.liveTimeout = .milliseconds(1_000)
        downConfiguration.interleaving.missPolicy = .async
        recorded += try await GatewayHarness.with(downConfiguration) { client, _ in
            let search = try await Recorded.call(client, .get, "/v1/search?q=curry", "/v1/search", expect: 503)
            let ready = try await Recorded.call(client, .get, "/readyz", "/readyz", expect: 503)
            let batch = try await Recorded.call(
                client, .post, "/v1/feeds/home/components:batchGet", "/v1/feeds/{feed}/components:batchGet",
                body: #"{"user":"u00009","components":["following"],"timeout_ms":2000}"#, expect: 200)
            let statuses = (batch.object["components"] as? [[String: Any]] ?? []).compactMap { $0["status"] as? String }
            #expect(statuses == ["pending"], "\(batch)")
            return [search, ready, batch]
        }

        let validated = recorded.filter { $0.status != 304 && $0.template != "/metrics" }
        #expect(validated.count >= 55, "only \(validated.count) responses validated")
        let verdicts = try OpenAPIValidator.validate(validated.map { ($0.body, $0.target) })
        for (response, verdict) in zip(validated, verdicts) {
            #expect(verdict == nil, "\(response.request) → \(response.status) does not conform to \(response.target): \(verdict ?? "")\n\(response)")
            #expect(response.contentType?.hasPrefix("application/json") == true, "\(response.request): Content-Type \(response.contentType ?? "none")")
        }
        // Every operation of the document was exercised.
        let operations = Set(recorded.map { "\($0.method) \($0.template)" })
        for operation in [
            "GET /v1/search", "GET /v1/feeds/{feed}", "GET /v1/feeds/{feed}/components/{component}",
            "POST /v1/feeds/{feed}/components:batchGet", "POST /v1/events", "GET /v1/experiments/{id}", "GET /healthz", "GET /readyz",
            "GET /metrics",
        ] {
            #expect(operations.contains(operation), "\(operation) was not exercised")
        }
    }
}

/// One real response and the schema of the document it must conform to.
struct Recorded: @unchecked Sendable, CustomStringConvertible {
    let method: String
    let request: String
    /// The path as written under `paths` in the document.
    let template: String
    let status: Int
    let headers: HTTPFields
    let body: Data
    var target: OpenAPIValidator.Target

    var contentType: String? { headers[.contentType] }

    /// The body as a JSON object (empty when it is not one).
    var object: [String: Any] { (try? JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:] }

    var description: String { "\(request) → \(status): \(String(decoding: body.prefix(2_000), as: UTF8.self))" }

    /// Sends a request and records the response; its status must be `status` (so each case is
    /// the one intended), and its target is the document's response for that status.
    static func call(
        _ client: any TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, _ template: String,
        headers: HTTPFields = [:], body: String? = nil, expect status: Int
    ) async throws -> Recorded {
        let response = try await client.execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
        let recorded = Recorded(
            method: method.rawValue, request: "\(method.rawValue) \(uri)\(body.map { " \($0)" } ?? "")", template: template,
            status: Int(response.status.code), headers: response.headers, body: Data(response.body.readableBytesView),
            target: .response(path: template, method: method.rawValue, status: Int(response.status.code)))
        try #require(recorded.status == status, "expected \(status): \(recorded)")
        return recorded
    }
}
