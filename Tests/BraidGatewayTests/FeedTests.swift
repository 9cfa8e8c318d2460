import BraidConfig
import BraidContracts
import BraidCore
import BraidGateway
import BraidPrecompute
import BraidRedis
import BraidSources
import BraidTestSupport
import BraidWiring
import Dispatch
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Synchronization
import Testing

/// Feeds: the layout first, then each component's content from the cache (with its state
/// hash as ETag) or live, alone or in a batch where a failing source is only "pending".
@Suite("Feeds", .serialized, .integration)
struct FeedTests {
    @Test("Layout per bucket; cached content with ETag and 304; pagination; a miss is served live and requested")
    func layoutAndContent() async throws {
        let fixture = try await WorkerFixture(documents: 300, users: 20)
        let configuration = GatewayHarness.configuration(fixture)
        try await GatewayHarness.with(configuration) { [configuration] client, gateway in
            let layout = try await client.json("/v1/feeds/home?user=u00003")
            #expect(layout.status == 200)
            let components = try #require(layout["components"] as? [[String: Any]])
            #expect(Set(components.compactMap { $0["id"] as? String }) == [
                "banner", "carousel", "my-week", "recommended", "creators", "following", "popular-dessert", "new-arrivals", "more",
            ])
            #expect(components.prefix(2).allSatisfy { $0["prefetch"] as? Bool == true })
            let carousel = try #require(components.first { $0["id"] as? String == "carousel" })
            #expect((carousel["layout"] as? [String: Any])?["auto_scroll_interval_ms"] as? Int == 5_000)
            #expect(["control", "recommended-first"].contains(layout["bucket"] as? String))
            let again = try await client.json("/v1/feeds/home?user=u00003")
            #expect(again["bucket"] as? String == layout["bucket"] as? String, "a user's bucket must be stable")

            // Materialized by the worker's code path, then served from Redis.
            let store = PrecomputeStore(redis: gateway.redis, keys: configuration.redis.cacheKeys)
            let materializer = ComponentMaterializer(
                store: store, provider: gateway.provider, feeds: configuration.materializedFeeds, storedItems: 25)
            _ = try await materializer.materialize(
                .init(feed: "home", type: .recommendedRecipes, scope: ComponentScope(user: "u00003")), ttlSeconds: nil, requestedAt: Date())
            let response = try await client.get("/v1/feeds/home/components/recommended?user=u00003")
            let content = try JSONBody(response)
            #expect(content["source"] as? String == "cached")
            #expect(content["status"] as? String == "ready")
            let items = try #require(content["items"] as? [[String: Any]])
            #expect(items.count == 10)
            let hash = try #require(content["state_hash"] as? String)
            #expect(response.headers[.eTag] == "\"\(hash)\"")
            let notModified = try await client.get(
                "/v1/feeds/home/components/recommended?user=u00003", headers: [.ifNoneMatch: "\"other\", \"\(hash)\""])
            #expect(notModified.status == .notModified)
            #expect(notModified.body.readableBytes == 0)

            // Pages of one component: 10 + 10 + 5 stored items, no overlap.
            var ids = items.compactMap { $0["id"] as? String }
            var cursor = content["next_cursor"] as? String
            while let next = cursor {
                let page = try await client.json("/v1/feeds/home/components/recommended?user=u00003&cursor=\(next)")
                #expect(page.status == 200, "\(page.object)")
                ids += (page["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
                cursor = page["next_cursor"] as? String
            }
            #expect(ids.count == 25)
            #expect(Set(ids).count == ids.count)
            let foreign = try await client.json("/v1/feeds/home/components/recommended?user=u00004&cursor=\(try #require(content["next_cursor"] as? String))")
            #expect(foreign.status == 400)

            // Nothing stored for this user: live content now, a materialize request for later.
            let live = try await client.json("/v1/feeds/home/components/recommended?user=u00005")
            #expect(live["source"] as? String == "live")
            #expect((live["items"] as? [[String: Any]])?.isEmpty == false)
            let marker = configuration.redis.cacheKeys.componentRequestMarker(
                feed: "home", type: .recommendedRecipes, scope: ComponentScope(user: "u00005"))
            #expect(try await gateway.redis.get(marker) != nil, "no materialize request was recorded")
        }
    }

    @Test("Unknown feeds and components are 404, bad bodies and users 400")
    func badFeedInput() async throws {
        let fixture = try await WorkerFixture(documents: 50, users: 5)
        try await GatewayHarness.with(GatewayHarness.configuration(fixture)) { client, _ in
            let cases: [(String, Int)] = [
                ("/v1/feeds/nope?user=u1", 404),
                ("/v1/feeds/home", 400),
                ("/v1/feeds/home/components/nope?user=u1", 404),
                ("/v1/feeds/home/components/recommended", 400),
                ("/v1/feeds/home/components/recommended?user=u1&cursor=garbage", 400),
                ("/v1/nothing-here", 404),
            ]
            for (uri, status) in cases {
                let response = try await client.json(uri)
                #expect(response.status == status, "\(uri): \(response.object)")
                #expect(response.errorCode != nil, "\(uri): \(response.object)")
            }
            let bodies: [(String, Int)] = [
                ("not json", 400),
                (#"{"user":"u1"}"#, 400),
                (#"{"user":"u1","components":[]}"#, 400),
                (#"{"user":"u1","components":["recommended"],"timeout_ms":0}"#, 400),
                (#"{"user":"","components":["recommended"]}"#, 400),
                (#"{"user":"u1","components":["nope"]}"#, 404),
            ]
            for (body, status) in bodies {
                let response = try JSONBody(try await client.execute(
                    uri: "/v1/feeds/home/components:batchGet", method: .post, body: ByteBuffer(string: body)))
                #expect(response.status == status, "\(body): \(response.object)")
                #expect(response.errorCode != nil)
            }
        }
    }

    @Test("batchGet: cached components are ready, one whose source fails is pending, in request order")
    func batchGetWithAFailingSource() async throws {
        let fixture = try await WorkerFixture(documents: 200, users: 10)
        let materializerConfiguration = GatewayHarness.configuration(fixture)
        var configuration = materializerConfiguration
        // The gateway's live provider reads a corpus that does not exist: every miss fails.
        configuration.search.sqlite.path = fixture.corpus.path + ".missing"
        try await GatewayHarness.with(configuration) { client, gateway in
            let store = PrecomputeStore(redis: gateway.redis, keys: materializerConfiguration.redis.cacheKeys)
            let provider = SQLiteComponentProvider(path: fixture.corpus.path)
            defer { Task { try? await provider.shutdown() } }
            let materializer = ComponentMaterializer(store: store, provider: provider, feeds: materializerConfiguration.materializedFeeds)
            _ = try await materializer.materialize(
                .init(feed: "home", type: .carousel, scope: ComponentScope(segment: "all")), ttlSeconds: nil, requestedAt: Date())
            _ = try await materializer.materialize(
                .init(feed: "home", type: .recommendedRecipes, scope: ComponentScope(user: "u00002")), ttlSeconds: nil, requestedAt: Date())
            let body = #"{"user":"u00002","components":["carousel","following","recommended"],"timeout_ms":2000}"#
            let response = try JSONBody(try await client.execute(
                uri: "/v1/feeds/home/components:batchGet", method: .post, body: ByteBuffer(string: body)))
            #expect(response.status == 200, "\(response.object)")
            let results = try #require(response["components"] as? [[String: Any]])
            #expect(results.compactMap { $0["component"] as? String } == ["carousel", "following", "recommended"])
            #expect(results.compactMap { $0["status"] as? String } == ["ready", "pending", "ready"])
            #expect(results[0]["source"] as? String == "cached")
        }
    }

    /// A live source that answers, but only after `delay`; records whether it got there.
    final class SlowProvider: ComponentProvider {
        let base: any ComponentProvider
        let delay: Duration
        let finished = Atomic(0)

        init(base: any ComponentProvider, delay: Duration) {
            self.base = base
            self.delay = delay
        }

        func items(_ request: ComponentRequest) async throws -> ComponentPage {
            // Deaf to cancellation, like a query on SQLite's thread pool: only the deadline helps.
            let nanoseconds = delay.components.seconds * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) { continuation.resume() }
            }
            defer { finished.add(1, ordering: .relaxed) }
            return try await base.items(request)
        }
    }

    @Test("A slow (not failing) source comes back pending within its deadline; cached components stay ready")
    func slowSourceIsPendingWithinItsDeadline() async throws {
        let fixture = try await WorkerFixture(documents: 200, users: 10)
        let configuration = GatewayHarness.configuration(fixture)
        try await GatewayHarness.with(configuration) { [configuration] _, gateway in
            let keys = configuration.redis.cacheKeys
            let store = PrecomputeStore(redis: gateway.redis, keys: keys)
            _ = try await ComponentMaterializer(store: store, provider: gateway.provider, feeds: configuration.materializedFeeds)
                .materialize(.init(feed: "home", type: .carousel, scope: ComponentScope(segment: "all")), ttlSeconds: nil, requestedAt: Date())
            let slow = SlowProvider(base: gateway.provider, delay: .seconds(5))
            let service = ComponentService(
                feeds: configuration.feeds, store: store, provider: slow,
                requests: DeduplicatingPublisher(
                    publisher: RequestPublisher(producer: gateway.producer, topic: configuration.kafka.requestsTopic),
                    redis: gateway.redis, keys: keys),
                codec: CursorCodec(key: configuration.gateway.cursorKey), cursorTTLSeconds: 600, storedItems: 60,
                liveTimeout: .seconds(30), nearCacheBytes: 1 << 20, logger: Logger(label: "test"))

            let batch = try await service.batch(feed: "home", components: ["carousel", "following"], user: "u00002", timeout: .milliseconds(200))
            #expect(batch.map(\.status) == [.ready, .pending])
            #expect(batch.map(\.component) == ["carousel", "following"])
            let single = try await service.content(
                feed: "home", component: "following", user: "u00002", cursor: nil, timeout: .milliseconds(200))
            #expect(single.status == .pending)
            // Both answers came back while the source was still working on them.
            #expect(slow.finished.load(ordering: .relaxed) == 0)
        }
    }
}
