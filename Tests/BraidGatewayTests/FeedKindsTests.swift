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
import NIOCore
import Testing

/// The component kinds of the seed apps, end to end: a `braid worker` materializes each from a
/// Kafka request, the gateway serves it through both stages (layout, then content with its
/// ETag and 304), and each item has its type's shape.
@Suite("Feed component kinds", .serialized, .integration)
struct FeedKindsTests {
    /// An author of the fixture corpus (authors are the first fifth of the users).
    static let author = "u00002"

    /// The layout entry of `component` in `feed` for `user`.
    static func layoutEntry(_ client: any TestClientProtocol, feed: String, component: String, user: String) async throws -> [String: Any] {
        let layout = try await client.json("/v1/feeds/\(feed)?user=\(user)")
        try #require(layout.status == 200, "\(layout.object)")
        let components = try #require(layout["components"] as? [[String: Any]])
        if let entry = components.first(where: { $0["id"] as? String == component }) { return entry }
        // A tab: listed under its tab group, with its own content URL.
        let tabs = components.flatMap { $0["tabs"] as? [[String: Any]] ?? [] }
        return try #require(tabs.first { $0["id"] as? String == component }, "\(component) is not in the layout of \(feed)")
    }

    /// Stage 2 once the worker has written it: polls until the content comes from the cache.
    static func cached(_ client: any TestClientProtocol, _ uri: String, source: String = "cached") async throws -> (TestResponse, JSONBody) {
        let deadline = ContinuousClock.now + .seconds(90)
        while true {
            let response = try await client.get(uri)
            let body = try JSONBody(response)
            try #require(body.status == 200, "\(uri): \(body.object)")
            if body["source"] as? String == source { return (response, body) }
            try #require(ContinuousClock.now < deadline, "\(uri) never came from the cache: \(body.object)")
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    static func items(_ body: JSONBody) throws -> [JSONValue] {
        let items = try #require(body["items"] as? [Any])
        return try JSONDecoder().decode([JSONValue].self, from: JSONSerialization.data(withJSONObject: items))
    }

    /// Both stages, the ETag and a 304, and the items' shape; returns the content.
    @discardableResult
    static func checkBothStages(
        _ client: any TestClientProtocol, feed: String, component: String, type: ComponentType, user: String = author, source: String = "cached"
    ) async throws -> JSONBody {
        let entry = try await layoutEntry(client, feed: feed, component: component, user: user)
        #expect(entry["type"] as? String == type.rawValue)
        // Tabs have no layout of their own (their group's is the layout): they are lists.
        let layout = entry["layout"] as? [String: Any] ?? ["sizing": "content"]
        #expect(layout["sizing"] as? String == type.sizing.rawValue, "\(component)")
        let url = try #require(entry["content_url"] as? String)
        let (response, body) = try await cached(client, url, source: source)
        #expect(body["type"] as? String == type.rawValue)
        let etag = try #require(response.headers[.eTag], "\(component): no ETag")
        let stateHash = try #require(body["state_hash"] as? String)
        if type.sizing == .fixed {
            // The size key is in the layout already, and it is not the content's hash.
            #expect(layout["state_hash"] as? String == stateHash, "\(component)")
            #expect(etag != "\"\(stateHash)\"", "\(component): a fixed-size component's ETag must follow its content")
        } else {
            #expect(layout["state_hash"] == nil, "\(component)")
            #expect(etag == "\"\(stateHash)\"", "\(component)")
        }
        let notModified = try await client.get(url, headers: [.ifNoneMatch: etag])
        #expect(notModified.status == .notModified, "\(component): \(notModified.status)")
        let changed = try await client.get(url, headers: [.ifNoneMatch: "\"0123\""])
        #expect(changed.status == .ok)
        if type.storesContent {
            try ComponentItemShape.validate(try items(body), for: type)
        }
        return body
    }

    @Test("New kinds: materialized by a worker from Kafka, served through both stages with ETag revalidation")
    func newKindsThroughBothStages() async throws {
        let fixture = try await WorkerFixture(documents: 400, users: 40)
        let configuration = GatewayHarness.configuration(fixture)
        let worker = try await fixture.startWorker("kinds-worker")
        defer { worker.signal(SIGTERM) }
        try await GatewayHarness.with(configuration) { client, gateway in
            let publisher = RequestPublisher(producer: gateway.producer, topic: fixture.requestsTopic)
            let user = Self.author
            let requests: [(String, ComponentType, ComponentScope)] = [
                ("home", .recommendedCreators, .init(user: user)), ("home", .userStats, .init(user: user)),
                ("home", .banner, .init(segment: "all")), ("home", .carousel, .init(segment: "all")),
                ("home", .interleavedRecipes, .init(segment: "all")),
                ("profile", .profileHeader, .init(user: user)), ("profile", .profileTabs, .init(user: user)),
                ("profile", .profileRecipes, .init(user: user)), ("profile", .profileCooksnaps, .init(user: user)),
            ]
            for (feed, type, scope) in requests {
                _ = try await publisher.publish(PrecomputeRequest(body: .component(.init(feed: feed, type: type, scope: scope))))
            }

            // Recommended creators: users, none of whom the user follows.
            let creators = try await Self.checkBothStages(client, feed: "home", component: "creators", type: .recommendedCreators)
            let creatorIDs = try Self.items(creators).compactMap { $0["id"]?.stringValue }
            #expect(!creatorIDs.isEmpty)
            #expect(!creatorIDs.contains(user))

            // The user's week: one object, fixed size.
            let week = try await Self.checkBothStages(client, feed: "home", component: "my-week", type: .userStats)
            #expect(try Self.items(week).count == 1)

            // Banner: the running campaign of the segment only (one is over, one targets another segment).
            let banner = try await Self.checkBothStages(client, feed: "home", component: "banner", type: .banner)
            #expect(try Self.items(banner).compactMap { $0["id"]?.stringValue } == ["welcome"])

            // Carousel: its options are layout hints, its items carry an overlay title.
            let carousel = try await Self.checkBothStages(client, feed: "home", component: "carousel", type: .carousel)
            #expect(try Self.items(carousel).allSatisfy { $0["overlay_title"]?.stringValue?.isEmpty == false })
            let carouselLayout = try #require(try await Self.layoutEntry(client, feed: "home", component: "carousel", user: user)["layout"] as? [String: Any])
            let options = try #require(carouselLayout["carousel"] as? [String: Any])
            #expect(options["auto_advance_interval_ms"] as? Int == 5_000)
            #expect(options["advance_only_when_idle"] as? Bool == true)
            #expect(options["wrap"] as? Bool == true)
            #expect(options["transition_ms"] as? Int == 300)
            #expect(options["overlay_title"] as? Bool == true)

            // Profile: the header, and the tab bar whose tabs are components of their own.
            let header = try await Self.checkBothStages(client, feed: "profile", component: "header", type: .profileHeader)
            #expect(try Self.items(header).first?["id"]?.stringValue == user)
            let tabsBody = try await Self.checkBothStages(client, feed: "profile", component: "tabs", type: .profileTabs)
            let counts = Dictionary(uniqueKeysWithValues: try Self.items(tabsBody).compactMap { item in
                item["id"]?.stringValue.map { ($0, Int(item["count"]?.numberValue ?? -1)) }
            })
            let tabs = try #require(try await Self.layoutEntry(client, feed: "profile", component: "tabs", user: user)["tabs"] as? [[String: Any]])
            #expect(tabs.compactMap { $0["id"] as? String } == ["recipes", "cooksnaps"])
            #expect(tabs.allSatisfy { $0["searchable"] as? Bool == true })
            try await Self.checkBothStages(client, feed: "profile", component: "recipes", type: .profileRecipes)
            try await Self.checkBothStages(client, feed: "profile", component: "cooksnaps", type: .profileCooksnaps)

            // The tabs page independently: alternate between them, each with its own cursor,
            // to the end; each yields exactly its count, without repeats.
            var cursors: [String: String?] = ["recipes": nil, "cooksnaps": nil]
            var seen: [String: [String]] = ["recipes": [], "cooksnaps": []]
            var done: Set<String> = []
            while done.count < 2 {
                for tab in ["recipes", "cooksnaps"] where !done.contains(tab) {
                    let cursor = cursors[tab] ?? nil
                    let page = try await client.json("/v1/feeds/profile/components/\(tab)?user=\(user)" + (cursor.map { "&cursor=\(encoded($0))" } ?? ""))
                    try #require(page.status == 200, "\(page.object)")
                    seen[tab, default: []] += try Self.items(page).compactMap { $0["id"]?.stringValue }
                    if let next = page["next_cursor"] as? String { cursors[tab] = next } else { done.insert(tab) }
                }
            }
            #expect(seen["recipes"]?.count == counts["profile_recipes"], "\(counts)")
            #expect(seen["cooksnaps"]?.count == counts["profile_cooksnaps"], "\(counts)")
            #expect(Set(seen["recipes"] ?? []).count == seen["recipes"]?.count)

            // A search inside a tab: live, the author's matching recipes only, paged with cursors bound to q.
            let corpus = SQLiteComponentProvider(path: fixture.corpus.path)
            defer { Task { try? await corpus.shutdown() } }
            let own = try await corpus.items(ComponentRequest(type: .profileRecipes, scope: .init(user: user), limit: 200)).items
            let latin = own.first { $0["title"]?.stringValue?.unicodeScalars.allSatisfy(\.isASCII) == true }
            let word = try #require(latin?["title"]?.stringValue?.split(separator: " ").last.map(String.init), "the author has no recipe in Latin script")
            let searched = try await client.json("/v1/feeds/profile/components/recipes?user=\(user)&q=\(encoded(word))")
            #expect(searched["source"] as? String == "live", "\(searched.object)")
            let found = try Self.items(searched)
            #expect(!found.isEmpty)
            #expect(found.allSatisfy { $0["author_id"]?.stringValue == user })
            #expect(found.allSatisfy { item in
                let text = ([item["title"]?.stringValue ?? "", item["category"]?.stringValue ?? ""] + (item["ingredients"].flatMap { if case .array(let a) = $0 { a.compactMap(\.stringValue) } else { nil } } ?? []))
                    .joined(separator: " ").lowercased()
                return text.contains(word.lowercased())
            })
            let snapSearch = try await client.json("/v1/feeds/profile/components/cooksnaps?user=\(user)&q=\(encoded(word))")
            #expect(snapSearch.status == 200)
            // Cooksnaps of recipes matching q (title, ingredients or category), the user's only.
            let search = SQLiteSearchSource(path: fixture.corpus.path)
            defer { Task { try? await search.shutdown() } }
            let matching = Set(try await search.search(SearchRequest(query: word, size: SearchRequest.maxSize)).hits.map(\.id))
            let userSnaps = try await corpus.items(ComponentRequest(type: .profileCooksnaps, scope: .init(user: user), limit: 200)).items
            let expectedSnaps = Set(userSnaps.filter { matching.contains($0["recipe_id"]?.stringValue ?? "") }.compactMap { $0["id"]?.stringValue })
            var snapIDs = try Self.items(snapSearch).compactMap { $0["id"]?.stringValue }
            var snapCursor = snapSearch["next_cursor"] as? String
            while let next = snapCursor {
                let more = try await client.json("/v1/feeds/profile/components/cooksnaps?user=\(user)&q=\(encoded(word))&cursor=\(encoded(next))")
                snapIDs += try Self.items(more).compactMap { $0["id"]?.stringValue }
                snapCursor = more["next_cursor"] as? String
            }
            #expect(Set(snapIDs) == expectedSnaps)
            let refused = try await client.json("/v1/feeds/home/components/creators?user=\(user)&q=x")
            #expect(refused.status == 400)
            let small = try await client.json("/v1/feeds/profile/components/cooksnaps?user=\(user)")
            if let next = small["next_cursor"] as? String {
                let foreign = try await client.json("/v1/feeds/profile/components/cooksnaps?user=\(user)&q=x&cursor=\(encoded(next))")
                #expect(foreign.status == 400, "a cursor without q was accepted for a search")
            }

            // The interleaved list: A and B interleaved by the search engine, pinned pages to the end.
            let first = try await Self.checkBothStages(client, feed: "home", component: "more", type: .interleavedRecipes, source: "interleaved")
            var ids: [String] = []
            var positions: [Int] = []
            var teams: Set<String> = []
            var page = first
            for _ in 0..<200 {
                for item in try #require(page["items"] as? [[String: Any]]) {
                    ids.append(try #require(item["id"] as? String))
                    positions.append(try #require(item["position"] as? Int))
                    teams.insert(try #require(item["team"] as? String))
                }
                guard let next = page["next_cursor"] as? String else { break }
                page = try await client.json("/v1/feeds/home/components/more?user=\(user)&cursor=\(encoded(next))")
                try #require(page.status == 200, "\(page.object)")
                #expect(page["source"] as? String == "interleaved")
            }
            #expect(page["next_cursor"] is NSNull, "the list did not end")
            #expect(positions == Array(0..<positions.count))
            #expect(Set(ids).count == ids.count, "an interleaved list repeated a document")
            #expect(teams == ["A", "B"])
        }
    }

    @Test("A cached page is the stored bytes; a v1 value still reads; a foreign value is served live, never a 500")
    func servedFromStoredBytes() async throws {
        let fixture = try await WorkerFixture(documents: 200, users: 10)
        let configuration = GatewayHarness.configuration(fixture)
        try await GatewayHarness.with(configuration) { [configuration] client, gateway in
            let keys = configuration.redis.cacheKeys
            let scope = ComponentScope(user: "u00003")
            let key = keys.component(feed: "home", type: .recommendedRecipes, scope: scope)
            // Valid JSON, but not what decoding and re-encoding would write: keys unsorted, 2.50.
            let item = #"{"title":"Odd","id":"x1","popularity":2.50,"image_url":"/i.jpg"}"#
            let document = #"{"count":1,"created_at":"2027-01-01T00:00:00Z","feed":"home","schema":"braid.component/v2","items":["# + item + "]}"
            let start = document.utf8.count - item.utf8.count - 2
            _ = try await gateway.redis.send([
                "HSET", .string(key), "version", "5", "state_hash", "x", "content", .string(document),
                "offsets", .string("[\(start),\(start + item.utf8.count + 1)]"),
            ])
            let raw = try await client.get("/v1/feeds/home/components/recommended?user=u00003")
            let text = String(buffer: raw.body)
            #expect(text.contains(#""items":["# + item + "]"), "\(text)")
            #expect(text.contains(#""source":"cached""#))
            #expect(raw.headers[.eTag] == "\"\(ComponentHash.content(ofJoinedItems: ArraySlice(Array(item.utf8))))\"")

            // Each rewrite below reaches the gateway as a key-tracking invalidation, which may
            // arrive after the next request: until then that request may serve the version
            // before (always a 200), so each answer is waited for.
            // A value of the previous format: read by re-encoding.
            let v1 = #"{"created_at":"2027-01-01T00:00:00Z","feed":"home","items":[{"id":"y1","title":"Old"}],"schema":"braid.component/v1","scope":{"user":"u00003"},"state_hash":"s","type":"recommended_recipes","version":6}"#
            _ = try await gateway.redis.send(["DEL", .string(key)])
            _ = try await gateway.redis.send(["HSET", .string(key), "version", "6", "state_hash", "s", "content", .string(v1)])
            try await eventually("the v1 value is served", within: .seconds(30)) {
                let old = try await client.json("/v1/feeds/home/components/recommended?user=u00003")
                #expect(old.status == 200, "\(old.object)")
                #expect(old["source"] as? String == "cached", "\(old.object)")
                return (old["items"] as? [[String: Any]])?.first?["id"] as? String == "y1"
            }

            // Offsets of a newer format next to an older document (a mixed deployment): refused, served live.
            _ = try await gateway.redis.send(["HSET", .string(key), "version", "7", "offsets", "[10,20]"])
            try await eventually("the foreign value is served live", within: .seconds(30)) {
                let foreign = try await client.json("/v1/feeds/home/components/recommended?user=u00003")
                #expect(foreign.status == 200, "\(foreign.object)")
                return foreign["source"] as? String == "live"
            }
        }
    }
}
