import BraidConfig
import BraidContracts
import BraidCore
import BraidExperiments
import BraidGateway
import BraidRedis
import BraidTestSupport
import BraidWiring
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing

/// A layout experiment end to end: layouts with signed impression ids, events through Kafka, a
/// `braid worker` crediting them per user in Redis, the outcome read with its sequential test.
@Suite("Layout experiments", .serialized, .integration)
struct LayoutExperimentTests {
    static let experiment = "layout-exp"

    static func configuration(_ fixture: WorkerFixture) -> BraidConfiguration {
        var configuration = GatewayHarness.configuration(fixture)
        // A large planned effect (one standard deviation) and a look every 20 users: 80 users decide.
        configuration.feeds["home"]?.experiment = LayoutExperimentSettings(name: experiment, margin: 1, lookEvery: 20)
        return configuration
    }

    @Test("The variant whose users click more is called the winner, per user, with the split checked against the weights")
    func theVariantWhoseUsersClickMoreWins() async throws {
        let fixture = try await WorkerFixture(documents: 300, users: 5)
        let configuration = Self.configuration(fixture)
        let worker = try await fixture.startWorker("layout-worker")
        defer { worker.signal(SIGTERM) }
        try await GatewayHarness.with(configuration) { client, gateway in
            var events: [[String: Any]] = []
            var users: [String: Int] = [:]
            var clicks: [String: Int] = [:]
            var clickedLayouts = 0
            for index in 0..<80 {
                let layout = try await client.json("/v1/feeds/home?user=layout-user-\(index)&session=layout-session-\(index)")
                #expect(layout.status == 200 && layout["experiment"] as? String == Self.experiment, "\(layout.object)")
                let id = try #require(layout["impression_id"] as? String, "\(layout.object)")
                let variant = try #require(layout["bucket"] as? String)
                let components = try #require(layout["components"] as? [[String: Any]]).compactMap { $0["id"] as? String }
                users[variant, default: 0] += 1
                events.append(["type": "impression", "impression_id": id])
                // Users of recommended-first click two components (one of them twice: counted once);
                // control users one in four click one.
                let clicked = variant == "recommended-first" ? [components[1], components[2], components[1]] : index % 4 == 0 ? [components[0]] : []
                for component in clicked { events.append(["type": "click", "impression_id": id, "component": component]) }
                clicks[variant, default: 0] += Set(clicked).count
                if !clicked.isEmpty { clickedLayouts += 1 }
            }
            for batch in stride(from: 0, to: events.count, by: 100).map({ Array(events[$0..<min($0 + 100, events.count)]) }) {
                let body = try JSONSerialization.data(withJSONObject: ["events": batch])
                let accepted = try JSONBody(try await client.execute(uri: "/v1/events", method: .post, body: ByteBuffer(bytes: body)))
                #expect(accepted["accepted"] as? Int == batch.count, "\(accepted.object)")
            }
            // Wait for the worker by reading its counters in Redis, then read the outcome once:
            // that read takes the looks the final counts make due. (Reading the outcome while
            // waiting would take a look as soon as 80 users are in, with some of their clicks
            // still on the way: a click may reach Kafka after its impression.) The repeated
            // clicks are waited for too: they credit nothing, so the credited counts can be
            // complete while some are still on their way.
            let deadline = ContinuousClock.now + .seconds(60)
            let counters = configuration.redis.cacheKeys.experiment(Self.experiment).counters
            let repeated = users["recommended-first", default: 0]
            while true {
                let fields = try await gateway.redis.hgetall(counters)
                func count(_ field: String) -> Int { fields[field].flatMap { Int(String(buffer: $0)) } ?? 0 }
                let credited = fields.keys.filter { $0.hasPrefix("layout:") && ($0.hasSuffix(":impressions") || $0.hasSuffix(":clicks")) }
                    .map(count).reduce(0, +)
                if credited == 80 + clicks.values.reduce(0, +) && count("duplicates") >= repeated { break }
                try #require(ContinuousClock.now < deadline, "the worker did not credit every event: \(fields.mapValues { String(buffer: $0) })")
                try await Task.sleep(for: .milliseconds(200))
            }
            let response = try await client.json("/v1/experiments/\(Self.experiment)")
            #expect(response.status == 200 && response["impressions"] as? Int == 0, "no interleaved pages: \(response.object)")
            let outcome = try #require(response["layout"] as? [String: Any], "\(response.object)")
            #expect(outcome["kind"] as? String == "layout" && outcome["feed"] as? String == "home", "\(outcome)")
            let variants = try #require(outcome["variants"] as? [[String: Any]])
            #expect(variants.map { $0["name"] as? String } == ["control", "recommended-first"])
            for variant in variants {
                let name = try #require(variant["name"] as? String)
                #expect(variant["users"] as? Int == users[name] && variant["sessions"] as? Int == users[name], "\(variant)")
                #expect(variant["impressions"] as? Int == users[name] && variant["clicks"] as? Int == clicks[name, default: 0], "\(variant)")
            }
            let ratio = try #require(outcome["sample_ratio"] as? [String: Any])
            #expect(ratio["degrees_of_freedom"] as? Int == 1 && ratio["mismatch"] is Bool, "\(ratio)")
            let pair = try #require((outcome["pairs"] as? [[String: Any]])?.first)
            #expect(pair["first"] as? String == "control" && pair["second"] as? String == "recommended-first", "\(pair)")
            #expect((pair["difference"] as? Double ?? 0) > 1.5, "\(pair)")
            let sequential = try #require(pair["sequential"] as? [String: Any], "\(pair)")
            #expect(sequential["decision"] as? String == "B", "recommended-first's users click more: \(sequential)")
            let looks = try #require((outcome["sequential"] as? [String: Any])?["looks"] as? Int, "\(outcome)")
            #expect(sequential["look"] as? Int == min(4, looks), "80 users, a look every 20: \(sequential)")
            #expect((20...80).contains(sequential["decided_sessions"] as? Int ?? 0), "\(sequential)")
            // Each recommended-first user clicked one component twice: counted once. The events of
            // one request reach Kafka concurrently, so a click may come before its impression,
            // which then counts as seen: at most one more duplicate per clicked layout.
            let duplicates = outcome["duplicates"] as? Int ?? -1
            #expect(outcome["correction"] as? String == "none" && (repeated...(repeated + clickedLayouts)).contains(duplicates), "\(outcome)")
        }
    }

    @Test("A click must name a component the layout's variant shows; a feed without an experiment issues no id")
    func clicksAreCheckedAgainstTheLayout() async throws {
        let fixture = try await WorkerFixture(documents: 50, users: 2)
        try await GatewayHarness.with(Self.configuration(fixture)) { client, _ in
            let ready = try await client.json("/readyz")
            #expect((ready["checks"] as? [String: String])?["layout_experiments"] == "ok", "the design was claimed: \(ready.object)")
            let layout = try await client.json("/v1/feeds/profile?user=someone")
            #expect(layout["impression_id"] == nil, "a feed without an experiment issues no id: \(layout.object)")
            let home = try await client.json("/v1/feeds/home?user=someone")
            let id = try #require(home["impression_id"] as? String)
            func post(_ events: [[String: Any]]) async throws -> JSONBody {
                let body = try JSONSerialization.data(withJSONObject: ["events": events])
                return try JSONBody(try await client.execute(uri: "/v1/events", method: .post, body: ByteBuffer(bytes: body)))
            }
            let elsewhere = try await post([["type": "click", "impression_id": id, "component": "header"]])
            #expect(elsewhere.status == 400 && elsewhere.errorCode == "invalid_event", "\(elsewhere.object)")
            let nowhere = try await post([["type": "click", "impression_id": id]])
            #expect(nowhere.status == 400 && nowhere.errorCode == "invalid_event", "\(nowhere.object)")
            let posing = try await post([["type": "layout_click", "impression_id": id, "component": "banner"]])
            #expect(posing.status == 400, "\(posing.object)")
            // One refused event refuses the batch: nothing of it is published. (Accepted layout
            // events are the first test's; here no worker has created the topic, and a first
            // publish would wait for the broker to create it.)
            let mixed = try await post([["type": "impression", "impression_id": id], ["type": "click", "impression_id": id, "component": "tabs"]])
            #expect(mixed.status == 400 && mixed.errorCode == "invalid_event", "\(mixed.object)")
        }
    }

    @Test("A change of salt or weights is refused while the experiment runs; a new name starts a new one")
    func aRunningDesignCannotChange() async throws {
        try await withRedisClient(try TestEnvironment.redisURL()) { (redis: RedisClient) async throws -> Void in
            let store = LayoutExperimentStore(redis: redis, keys: CacheKeys(prefix: TestEnvironment.uniqueName("braid")))
            func design(_ name: String, salt: String? = nil, weights: (Int, Int) = (50, 50)) throws -> LayoutExperimentDesign {
                var feed = BraidConfiguration.defaultFeeds["home"]!
                feed.variants[0].weight = weights.0
                feed.variants[1].weight = weights.1
                feed.experiment = LayoutExperimentSettings(name: name, salt: salt)
                var configuration = BraidConfiguration()
                configuration.feeds = ["home": feed]
                return try #require(try configuration.layoutExperimentDesigns()[name])
            }
            try await store.claim(try design("running"))
            try await store.claim(try design("running"))
            await #expect(throws: LayoutExperimentStore.DesignChanged.self) { try await store.claim(try design("running", weights: (60, 40))) }
            await #expect(throws: LayoutExperimentStore.DesignChanged.self) { try await store.claim(try design("running", salt: "new-salt")) }
            try await store.claim(try design("running-2", salt: "new-salt"))
            // The gateway's start-up claim stops it with that error, naming the key.
            let claim = LayoutDesignClaim(designs: [try design("running", weights: (60, 40))], store: store, logger: Logger(label: "test"))
            do {
                try await claim.run()
                Issue.record("a changed design was claimed")
            } catch let error as LayoutExperimentStore.DesignChanged {
                #expect(error.description.contains("feeds.home.experiment 'running'") && error.description.contains("control:50"), "\(error)")
            }
        }
    }
}

/// Layout credit in Redis against the sums computed here: replays, repeated clicks and clicks
/// before their impression change nothing they should not.
@Suite("layout experiment credit against a real Redis", .integration)
struct LayoutExperimentStoreTests {
    @Test func perUserClicksAndTheirSquaresMatchTheEventsOnceEach() async throws {
        try await withRedisClient(try TestEnvironment.redisURL()) { (redis: RedisClient) async throws -> Void in
            let store = LayoutExperimentStore(redis: redis, keys: CacheKeys(prefix: TestEnvironment.uniqueName("braid")))
            let codec = ImpressionCodec(key: Array("k".utf8))
            var random = SeededGenerator(seed: 49)
            var userClicks: [String: [String: Int]] = [:]
            var expectedImpressions: [String: Int] = [:]
            var duplicates = 0
            let now = Date()
            for index in 0..<120 {
                let user = "user-\(Int.random(in: 0..<30, using: &random))"
                let variant = Bucketing.bucket(of: user, salt: "s") < 50 ? "a" : "b"
                let layout = LayoutImpression(
                    experiment: "credit", feed: "home", variant: variant, userKey: codec.userKey(user: user, session: nil),
                    sessionKey: codec.userKey(user: nil, session: "\(user)-\(index % 3)"), issuedAt: Int64(now.timeIntervalSince1970),
                    nonce: UInt64(index))
                let components = (0..<Int.random(in: 0...3, using: &random)).map { _ in ["x", "y", "z"].randomElement(using: &random)! }
                var events = components.map { ExperimentEvent.make(layout: layout, click: $0) }
                events.insert(.make(layout: layout), at: Int.random(in: 0...events.count, using: &random))
                events += events.prefix(1)  // a redelivery
                // What the store must call a duplicate: an impression seen before (a click counts
                // its impression), a component of the impression clicked before.
                var seen = false
                var clicked: Set<String> = []
                for event in events {
                    if event.type == .layoutImpression {
                        if seen { duplicates += 1 }
                    } else if !clicked.insert(event.component ?? "").inserted {
                        duplicates += 1
                    }
                    seen = true
                    _ = try await store.apply(event, now: now)
                }
                expectedImpressions[variant, default: 0] += 1
                userClicks[variant, default: [:]][user, default: 0] += Set(components).count
            }
            let design = try LayoutExperimentDesign(
                experiment: "credit", feed: "home", variants: [("a", 50), ("b", 50)], design: "d", margin: 0.5, power: 0.8, lookEvery: 10)
            let outcome = try await store.outcome(of: design)
            for variant in outcome.variants {
                let clicks = userClicks[variant.name, default: [:]]
                #expect(variant.users == clicks.count && variant.impressions == expectedImpressions[variant.name], "\(variant)")
                #expect(variant.clicks == clicks.values.reduce(0, +), "\(variant)")
                let mean = Double(variant.clicks) / Double(max(1, variant.users))
                let variance = clicks.values.map { Double($0 * $0) }.reduce(0, +) / Double(max(1, variant.users)) - mean * mean
                #expect(abs(variant.variance - variance) < 1e-9 && abs(variant.clicksPerUser - mean) < 1e-12, "\(variant)")
                #expect((1...variant.users * 3).contains(variant.sessions), "\(variant)")
            }
            #expect(outcome.duplicates == duplicates && duplicates >= 120)
            // A late event (its impression's state may be gone) is counted as late, credited nothing.
            let old = LayoutImpression(
                experiment: "credit", feed: "home", variant: "a", userKey: codec.userKey(user: "late", session: nil), issuedAt: 1_000, nonce: 999)
            #expect(try await store.apply(.make(layout: old), now: now) == .late)
        }
    }
}
