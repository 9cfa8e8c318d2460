import BraidConfig
import BraidContracts
import BraidCore
@testable import BraidGateway
import BraidKafka
import BraidPrecompute
import BraidRedis
import BraidTestSupport
import BraidWiring
import Foundation
import FoundationNetworking
import Hummingbird
import HummingbirdTesting
import Testing

#if canImport(FoundationNetworking)
#endif

/// How `GET /v1/search` answers bad input, misses, and outages of Redis or the live backend.
@Suite("Search behaviour", .serialized, .integration)
struct SearchBehaviourTests {
    @Test("A page past the end answers the list's real total, not its own offset")
    func totalPastTheEnd() async throws {
        let fixture = try await WorkerFixture(documents: 200, users: 10)
        try await GatewayHarness.with(GatewayHarness.configuration(fixture)) { client, _ in
            let first = try await client.json("/v1/search?q=curry&per_page=20&session=s1")
            let total = try #require(first["total"] as? Int)
            #expect(total > 0 && total < 19_980, "\(first.object)")
            let far = try await client.json("/v1/search?q=curry&per_page=20&page=1000&session=s1")
            #expect(far.status == 200, "\(far.object)")
            #expect(far["total"] as? Int == total, "\(far.object)")
            #expect((far["items"] as? [Any])?.isEmpty == true && far["next_cursor"] is NSNull, "\(far.object)")
        }
    }

    @Test("Bad parameters and forged, tampered, foreign or expired cursors are 400 JSON errors")
    func badInputIsA400() async throws {
        let fixture = try await WorkerFixture(documents: 200, users: 10)
        let configuration = GatewayHarness.configuration(fixture)
        try await GatewayHarness.with(configuration) { [configuration] client, _ in
            let first = try await client.json("/v1/search?q=curry&per_page=3&session=s1")
            let cursor = try #require(first["next_cursor"] as? String)
            var tampered = Array(cursor)
            tampered[10] = tampered[10] == "A" ? "B" : "A"
            var random = SeededGenerator(seed: 3)
            let noise = String((0..<91).map { _ in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".randomElement(using: &random)! })
            let cases: [(String, String)] = [
                ("/v1/search", "invalid_parameter"),
                ("/v1/search?q=%20%20", "invalid_parameter"),
                ("/v1/search?q=curry&per_page=0", "invalid_parameter"),
                ("/v1/search?q=curry&per_page=101", "invalid_parameter"),
                ("/v1/search?q=curry&page=abc", "invalid_parameter"),
                ("/v1/search?q=curry&page=-1", "invalid_parameter"),
                ("/v1/search?q=%ZZcurry", "invalid_parameter"),
                ("/v1/search?q=curry&ranking=nope", "unknown_ranking"),
                ("/v1/search?q=curry&ranking=Bad%20Name", "invalid_parameter"),
                ("/v1/search?q=curry&cursor=\(noise)", "invalid_cursor"),
                ("/v1/search?q=curry&cursor=\(String(tampered))&session=s1", "invalid_cursor"),
                ("/v1/search?q=curry&cursor=\(cursor.dropLast(4))&session=s1", "invalid_cursor"),
                ("/v1/search?q=pasta&cursor=\(cursor)&session=s1", "cursor_mismatch"),
                ("/v1/search?q=curry&cursor=\(cursor)&session=s1&ranking=fresh", "cursor_mismatch"),
                // A cursor keeps its page size: another per_page is refused, not silently ignored.
                ("/v1/search?q=curry&cursor=\(cursor)&session=s1&per_page=4", "cursor_mismatch"),
            ]
            for (uri, code) in cases {
                let response = try await client.json(uri)
                #expect(response.status == 400, "\(uri): \(response.object)")
                #expect(response.errorCode == code, "\(uri): \(response.object)")
            }
            #expect(try await client.json("/v1/search?q=curry&cursor=\(cursor)&session=s1&per_page=3").status == 200, "the cursor's own page size")
            // Same query in another spelling: the cursor belongs to the normalised query.
            let respelled = try await client.json("/v1/search?q=%20CURRY%20&cursor=\(cursor)&session=s1")
            #expect(respelled.status == 200, "\(respelled.object)")
            // The same cursor, validly signed, but past its expiry.
            let codec = CursorCodec(key: configuration.gateway.cursorKey)
            var stale = try codec.decodeSearch(cursor)
            stale.expiresAt = Int64(Date().timeIntervalSince1970) - 1
            let expired = try await client.json("/v1/search?q=curry&cursor=\(codec.encode(stale))&session=s1")
            #expect(expired.status == 400)
            #expect(expired.errorCode == "cursor_expired")
            // Validly signed, but expiring later than this gateway would ever issue: its issuer's
            // clock is ahead by more than the tolerance. Within the tolerance it is served.
            let lifetime = configuration.gateway.cursorTtl.wholeSeconds
            var early = try codec.decodeSearch(cursor)
            early.expiresAt = Int64(Date().timeIntervalSince1970) + lifetime + Int64(ClockSkew.toleranceSeconds) + 60
            let future = try await client.json("/v1/search?q=curry&cursor=\(codec.encode(early))&session=s1")
            #expect(future.status == 400, "\(future.object)")
            #expect(future.errorCode == "cursor_from_the_future")
            early.expiresAt = Int64(Date().timeIntervalSince1970) + lifetime + Int64(ClockSkew.toleranceSeconds) - 60
            let skewed = try await client.json("/v1/search?q=curry&cursor=\(codec.encode(early))&session=s1")
            #expect(skewed.status == 200, "\(skewed.object)")
        }
    }

    @Test("A cursor whose pinned snapshot has expired is a 400 cursor_expired, not a page of another snapshot")
    func expiredPinnedSnapshotIsA400() async throws {
        let fixture = try await WorkerFixture(documents: 200, users: 5)
        let configuration = GatewayHarness.configuration(fixture)
        let (cursor, version) = try await GatewayHarness.with(configuration) { client, _ in
            let first = try await client.json("/v1/search?q=curry&per_page=3&session=x1")
            let version = try #require(((first["interleaving"] as? [String: Any])?["snapshot"] as? NSNumber)?.int64Value, "\(first.object)")
            return (try #require(first["next_cursor"] as? String), version)
        }
        // The pinned version's key expires (deleted here); a gateway without it in its
        // near-cache (a new process) must refuse the cursor rather than mix snapshots.
        let keys = configuration.redis.cacheKeys.ranking("featured", query: "curry")
        try await withRedisClient(fixture.redisURL) { (redis: RedisClient) async throws -> Void in
            #expect(try await redis.del([keys.version(version)]) == 1)
        }
        try await GatewayHarness.with(configuration) { client, _ in
            let second = try await client.json("/v1/search?q=curry&cursor=\(cursor)&session=x1")
            #expect(second.status == 400, "\(second.object)")
            #expect(second.errorCode == "cursor_expired")
        }
    }

    @Test("Concurrent misses across two gateway processes: single-flight is per process, so at most one computation each")
    func inlineMissesAcrossGatewaysComputeOncePerProcess() async throws {
        let fixture = try await WorkerFixture(documents: 300, users: 5)
        let configuration = GatewayHarness.configuration(fixture)
        // Two gateways (two in-process assemblies: separate single-flight and caches) on one Redis.
        try await GatewayHarness.with(configuration) { first, firstGateway in
            try await GatewayHarness.with(configuration) { second, gateway in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<20 {
                        group.addTask {
                            let client = index.isMultiple(of: 2) ? first : second
                            let page = try await client.json("/v1/search?q=noodle&per_page=5&session=g\(index)")
                            try #require(page.status == 200, "\(page.object)")
                        }
                    }
                    try await group.waitForAll()
                }
                // Each process computed at most once (the second may have found the first's
                // snapshot), and at least one of them did.
                let computations = [
                    await firstGateway.routes.search.misses.flights.started, await gateway.routes.search.misses.flights.started,
                ]
                #expect(computations.allSatisfy { $0 <= 1 } && computations.reduce(0, +) >= 1, "computations per gateway: \(computations)")
            }
        }
    }

    @Test("Live backend unreachable: 503 with a JSON error, not a half page; it says what failed, never where")
    func liveBackendDownIs503() async throws {
        let fixture = try await WorkerFixture(documents: 50, users: 5)
        var configuration = GatewayHarness.configuration(fixture)
        let port = try FreePort.find()
        configuration.search.source = .http
        configuration.search.http.url = "http://127.0.0.1:\(port)/rank"
        configuration.search.timeout = .milliseconds(300)
        configuration.gateway.liveTimeout = .milliseconds(1_000)
        configuration.interleaving.missPolicy = .async
        try await GatewayHarness.with(configuration) { client, _ in
            let response = try await client.get("/v1/search?q=curry")
            let body = try JSONBody(response)
            #expect(body.status == 503, "\(body.object)")
            #expect(["live_unavailable", "live_timeout"].contains(body.errorCode), "\(body.object)")
            let ready = try await client.get("/readyz")
            let readiness = try JSONBody(ready)
            #expect(readiness.status == 503)
            let checks = readiness["checks"] as? [String: String]
            #expect(checks?["live"] != nil && checks?["live"] != "ok", "\(readiness.object)")
            #expect(checks?["redis"] == "ok")
            #expect(checks.map { Set($0.values).isSubset(of: ["ok", "timeout", "unavailable"]) } == true, "\(readiness.object)")
            // No internal address, port or upstream text in either body.
            for text in [String(buffer: response.body), String(buffer: ready.body)] {
                for leak in ["127.0.0.1", "\(port)", "rank", "onnect"] { #expect(!text.contains(leak), "\(leak) in \(text)") }
            }
        }
    }

    @Test("Concurrent misses of one query compute its snapshot once (inline policy)")
    func inlineMissesComputeOnce() async throws {
        let fixture = try await WorkerFixture(documents: 300, users: 5)
        let configuration = GatewayHarness.configuration(fixture)
        try await GatewayHarness.with(configuration) { [configuration] client, gateway in
            let snapshots = try await withThrowingTaskGroup(of: Int64?.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        let page = try await client.json("/v1/search?q=chicken&per_page=10&session=m\(index)")
                        try #require(page.status == 200, "\(page.object)")
                        return ((page["interleaving"] as? [String: Any])?["snapshot"] as? NSNumber)?.int64Value
                    }
                }
                return try await group.reduce(into: [Int64?]()) { $0.append($1) }
            }
            #expect(Set(snapshots).count == 1, "pages saw \(Set(snapshots)) snapshot versions")
            #expect(snapshots.allSatisfy { $0 != nil })
            let pattern = configuration.redis.cacheKeys.ranking("featured", query: "chicken").versionPrefix + "*"
            let reply = try await gateway.redis.send(["KEYS", .string(pattern)])
            guard case .array(let keys?) = reply else { Issue.record("KEYS answered \(reply)"); return }
            #expect(keys.count == 1, "\(keys.count) snapshot versions written for one burst of misses")
            #expect(await gateway.routes.search.misses.flights.started == 1)
        }
    }

    @Test("Async misses serve live-only, publish one request, and the session stays live-only")
    func asyncMissStaysLiveOnly() async throws {
        let fixture = try await WorkerFixture(documents: 300, users: 5)
        var configuration = GatewayHarness.configuration(fixture)
        configuration.interleaving.missPolicy = .async
        let worker = try await fixture.startWorker("async-miss")
        defer { worker.signal(SIGTERM) }
        try await GatewayHarness.with(configuration) { [configuration] client, gateway in
            let first = try await client.json("/v1/search?q=salmon&per_page=4&session=a1")
            #expect(first.status == 200)
            #expect((first["interleaving"] as? [String: Any])?["snapshot"] is NSNull)
            #expect((first["items"] as? [[String: Any]])?.allSatisfy { $0["team"] as? String == "A" } == true)
            // The worker materializes what the gateway asked for.
            let store = PrecomputeStore(redis: gateway.redis, keys: configuration.redis.cacheKeys)
            let deadline = ContinuousClock.now + .seconds(60)
            while try await store.currentVersion(ranking: "featured", query: "salmon") == nil {
                try #require(ContinuousClock.now < deadline, "the worker did not materialize the requested snapshot")
                try await Task.sleep(for: .milliseconds(200))
            }
            let cursor = try #require(first["next_cursor"] as? String)
            let second = try await client.json("/v1/search?q=salmon&cursor=\(cursor)&session=a1")
            #expect((second["interleaving"] as? [String: Any])?["snapshot"] is NSNull, "a live-only session switched to a snapshot")
            #expect((second["items"] as? [[String: Any]])?.first?["position"] as? Int == 4)
            let fresh = try await client.json("/v1/search?q=salmon&per_page=4&session=a1")
            #expect((fresh["interleaving"] as? [String: Any])?["snapshot"] as? NSNumber != nil, "a new session does not use the snapshot")
        }
    }

    @Test("A snapshot older than its refresh threshold triggers one refresh, which a worker materializes")
    func refreshAhead() async throws {
        let fixture = try await WorkerFixture(documents: 300, users: 5)
        var configuration = GatewayHarness.configuration(fixture)
        configuration.rankings["featured"]?.refreshAfter = .seconds(1)
        let worker = try await fixture.startWorker("refresh-ahead")
        defer { worker.signal(SIGTERM) }
        try await GatewayHarness.with(configuration) { [configuration] client, gateway in
            let first = try await client.json("/v1/search?q=cake&per_page=5&session=f1")
            let version = try #require((first["interleaving"] as? [String: Any])?["snapshot"] as? NSNumber).int64Value
            try await Task.sleep(for: .seconds(1.5))
            // Stale now: these pages are still served from it, and ask once for a refresh.
            for session in ["f2", "f3", "f4"] {
                let page = try await client.json("/v1/search?q=cake&per_page=5&session=\(session)")
                #expect((page["interleaving"] as? [String: Any])?["snapshot"] as? NSNumber == NSNumber(value: version))
            }
            let marker = configuration.redis.cacheKeys.ranking("featured", query: "cake").refreshMarker
            #expect(try await gateway.redis.getString(marker) == "refresh")
            let store = PrecomputeStore(redis: gateway.redis, keys: configuration.redis.cacheKeys)
            let deadline = ContinuousClock.now + .seconds(60)
            while try await store.currentVersion(ranking: "featured", query: "cake") == version {
                try #require(ContinuousClock.now < deadline, "the refresh was not materialized")
                try await Task.sleep(for: .milliseconds(200))
            }
        }
    }

    @Test("braid gateway serves, and exits 0 on SIGTERM")
    func processStartsAndStops() async throws {
        let fixture = try await WorkerFixture(documents: 50, users: 5)
        let port = try FreePort.find()
        var environment = fixture.environment
        environment["BRAID_GATEWAY_PORT"] = "\(port)"
        let gateway = try await TestRun.start(
            BraidBinary.url.path, ["gateway"], environment: environment,
            log: try TestEnvironment.runDirectory().appendingPathComponent("\(fixture.keyPrefix)-gateway.log"))
        let deadline = ContinuousClock.now + .seconds(30)
        while !FreePort.accepts(port: port) {
            try #require(ContinuousClock.now < deadline && !gateway.hasExited, "braid gateway did not start listening")
            try await Task.sleep(for: .milliseconds(100))
        }
        let (data, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/v1/search?q=curry&per_page=3")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200, "\(String(decoding: data, as: UTF8.self))")
        gateway.signal(SIGTERM)
        #expect(await gateway.waitForExit(timeout: .seconds(20)) == 0)
    }

    @Test("Redis stopped: live-only pages with degraded true and no 5xx; Redis back: interleaving resumes")
    func redisOutageDegrades() async throws {
        let fixture = try await WorkerFixture(documents: 300, users: 5)
        let server = try RedisServerProcess()
        try await server.start()
        var configuration = GatewayHarness.configuration(fixture, redisURL: server.url)
        // Page 1 must go to Redis for its pointer, rather than reuse the one read a moment ago.
        configuration.gateway.pointerCache = .milliseconds(0)
        do {
            try await GatewayHarness.with(configuration) { client, gateway in
                let before = try await client.json("/v1/search?q=pasta&per_page=6&session=d1")
                #expect(before["degraded"] as? Bool == false)
                let cursor = try #require(before["next_cursor"] as? String)

                await server.stop()
                // Until its tracking connection's close is seen, the gateway may still trust the pointer it holds.
                try await eventually("key tracking off") { gateway.keyTracker?.isTracking != true }
                let page = try await client.json("/v1/search?q=pasta&per_page=6&session=d2")
                #expect(page.status == 200, "\(page.object)")
                #expect(page["degraded"] as? Bool == true)
                #expect((page["items"] as? [[String: Any]])?.allSatisfy { $0["team"] as? String == "A" } == true)
                // A session pinned to a snapshot in the near-cache needs no Redis at all.
                let pinned = try await client.json("/v1/search?q=pasta&cursor=\(cursor)&session=d1")
                #expect(pinned.status == 200, "\(pinned.object)")
                #expect(pinned["degraded"] as? Bool == false)
                #expect((pinned["items"] as? [[String: Any]])?.first?["position"] as? Int == 6)
                #expect(try await client.json("/readyz").status == 503)

                try await server.start()
                let deadline = ContinuousClock.now + .seconds(20)
                while true {
                    let page = try await client.json("/v1/search?q=pasta&per_page=6&session=d3")
                    #expect(page.status == 200)
                    if page["degraded"] as? Bool == false, (page["interleaving"] as? [String: Any])?["snapshot"] as? NSNumber != nil { break }
                    try #require(ContinuousClock.now < deadline, "interleaving did not resume after Redis came back")
                    try await Task.sleep(for: .milliseconds(200))
                }
            }
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
