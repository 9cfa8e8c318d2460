import BraidContracts
import BraidHarness
import BraidDevSupport
import BraidRedis
import Foundation
import NIOCore

/// `redis-full`: a gateway and a worker on a Redis of ``maxmemoryMB`` MB started with the shipped
/// `Deploy/redis/braid-redis.conf` (`volatile-lfu`). First the state Braid cannot recompute:
/// ``sessions`` walks are taken to page 2, and an impression of each is clicked (team B) and
/// credited. Then Redis is filled past its limit by component requests for new users while
/// page-1 requests come one after the other. Passes when Redis evicted keys, every answer was a
/// 200, nothing was dead-lettered, every walk record is still there and each walk resumes at page
/// 3 exactly (no document twice, no position skipped), the experiment's credit is unchanged, and
/// replaying every click credits nothing (each impression's state is still there to say it was
/// seen). What degrades is printed: keys evicted, the components still stored, the pages still
/// interleaved.
public struct RedisFull: FaultScenario {
    public let name = "redis-full"
    public var maxmemoryMB = 48
    public var sessions = 100
    /// Component requests for distinct users: several times what fits.
    public var fillRequests = 30_000
    public var queries = ["curry", "pasta", "salmon", "cake", "soup", "bread", "tomato", "egg"]

    public init() {}

    static let experiment = "full-exp"

    /// `redis-server` arguments for the directives of a Redis configuration file
    /// (`maxmemory-policy volatile-lfu` → `--maxmemory-policy volatile-lfu`).
    public static func arguments(fromConfiguration text: String) -> [String] {
        text.split(whereSeparator: \.isNewline).flatMap { line -> [String] in
            let words = line.split(whereSeparator: \.isWhitespace).map(String.init)
            guard let directive = words.first, !directive.hasPrefix("#") else { return [] }
            return ["--\(directive)"] + words.dropFirst()
        }
    }

    /// A walk taken to page 2 before the fill.
    struct HalfWalk {
        var query: String
        var ids: [String]
        var positions: [Int]
        var cursor: String
        var walk: String
    }

    public func run(on stack: FaultStack) async throws -> FaultResult {
        try await ScenarioWorld.with(stack, scenario: name) { world in
            let shipped = try String(contentsOf: Toolchain.root.appendingPathComponent("Deploy/redis/braid-redis.conf"), encoding: .utf8)
            let redisServer = try await RedisServer.start(
                in: world.run, arguments: Self.arguments(fromConfiguration: shipped) + ["--maxmemory", "\(maxmemoryMB)mb"])
            let fixture = try await world.fixture(redisURL: redisServer.url)
            let file = world.file("full.yaml")
            try """
                gateway:
                  admission: {threshold: 1}
                interleaving:
                  arms:
                    - {name: \(Self.experiment), weight: 100, mode: team_draft}

                """.write(to: file, atomically: true, encoding: .utf8)
            _ = try await fixture.startWorker("full-worker", arguments: ["--config", file.path])
            try await fixture.waitUntilAssigned("full-worker")
            let gateway = try await fixture.startGateway("full-gateway", arguments: ["--config", file.path])
            let base = gateway.baseURL

            // What cannot be recomputed: walks half taken, clicks credited.
            var walks: [HalfWalk] = []
            var clicks: [[String: Any]] = []
            for index in 0..<sessions {
                let query = queries[index % queries.count]
                let session = "full-\(index)"
                let first = try await page("\(base)/v1/search?q=\(query)&per_page=10&session=\(session)")
                let impression = try Self.required(first["impression_id"] as? String, "page 1 has no impression_id", first)
                let items = try Self.required(first["items"] as? [[String: Any]], "page 1 has no items", first)
                let b = try Self.required(items.first { $0["team"] as? String == "B" }?["position"] as? Int, "page 1 has no B item", first)
                clicks.append(["type": "click", "impression_id": impression, "position": b])
                let cursor = try Self.required(first["next_cursor"] as? String, "page 1 has no next_cursor", first)
                let second = try await page("\(base)/v1/search?q=\(query)&cursor=\(ServedPage.queryComponent(cursor))&per_page=10&session=\(session)")
                let secondItems = try Self.required(second["items"] as? [[String: Any]], "page 2 has no items", second)
                let next = try Self.required(second["next_cursor"] as? String, "page 2 has no next_cursor", second)
                let all = items + secondItems
                walks.append(
                    HalfWalk(
                        query: query, ids: all.compactMap { $0["id"] as? String }, positions: all.compactMap { $0["position"] as? Int },
                        cursor: next, walk: session))
            }
            try await AppEvents.post(clicks, to: base)
            let keys = CacheKeys(prefix: fixture.keyPrefix)
            let counters = keys.experiment(Self.experiment).counters
            let walkPattern = RedisClient.globPattern(prefix: "\(fixture.keyPrefix):{walk:")
            let before = try await fixture.withRedis { redis in
                try await Poll.until(seconds: 60, "the clicks were not credited within 60 s") {
                    Int(try await redis.hgetall(counters)["wins_b"].map { String(buffer: $0) } ?? "0") ?? 0 >= sessions
                }
                return (
                    walkRecords: Set(try await redis.scanKeys(matching: walkPattern, count: 1_000)),
                    counters: Self.strings(try await redis.hgetall(counters)))
            }

            // The fill, under page-1 load.
            let stop = TimedPages.Stop()
            let load = Task { await TimedPages(baseURL: base, queries: queries).run(until: stop) }
            let lines = (0..<fillRequests).map {
                DemoRequests.component(feed: "home", type: "recommended_recipes", scope: ["user": "fill-\($0)"])
            }
            let (status, last) = try await fixture.publish(lines, as: "fill")
            guard status == 0 else { throw HarnessError.failed("publishing the fill failed: \(last)") }
            let memory = try await fixture.withRedis { redis in
                // Half the fill evicted: Redis's content turned over several times, and the walks and
                // impression states, untouched for minutes, are the coldest keys (LFU counts decay).
                try await Poll.until(seconds: 600, "Redis evicted fewer than \(fillRequests / 2) keys in 600 s") {
                    (Self.info(try await redis.send(["INFO", "stats"]).string, "evicted_keys") ?? 0) >= fillRequests / 2
                }
                return try await redis.send(["INFO", "memory"]).string ?? ""
            }
            stop.set()
            let pages = await load.value

            // What must not have been lost.
            let after = try await fixture.withRedis { redis in
                (
                    walkRecords: Set(try await redis.scanKeys(matching: walkPattern, count: 1_000)),
                    counters: Self.strings(try await redis.hgetall(counters)),
                    evicted: Self.info(try await redis.send(["INFO", "stats"]).string, "evicted_keys") ?? 0,
                    components: try await redis.scanKeys(matching: RedisClient.globPattern(prefix: "\(fixture.keyPrefix):{comp:"), count: 1_000)
                        .filter { $0.hasSuffix(":content") }.count)
            }
            var resumed = 0
            var inexact: [String] = []
            for walk in walks {
                let third = try await page(
                    "\(base)/v1/search?q=\(walk.query)&cursor=\(ServedPage.queryComponent(walk.cursor))&per_page=10&session=\(walk.walk)")
                let items = third["items"] as? [[String: Any]] ?? []
                let ids = walk.ids + items.compactMap { $0["id"] as? String }
                let positions = walk.positions + items.compactMap { $0["position"] as? Int }
                if Set(ids).count == ids.count, positions == Array(0..<positions.count), items.count == 10 { resumed += 1 } else {
                    inexact.append("\(walk.walk) (\(walk.query)): \(ids.count) ids, \(Set(ids).count) distinct, positions \(positions.prefix(3))…\(positions.suffix(3))")
                }
            }
            try await AppEvents.post(clicks, to: base)
            let replayed = try await fixture.withRedis { redis in
                try await Poll.until(seconds: 60, "the replayed clicks were not counted within 60 s") {
                    let duplicates = Int(try await redis.hgetall(counters)["duplicates"].map { String(buffer: $0) } ?? "0") ?? 0
                    return duplicates >= Int(before.counters["duplicates"] ?? "0")! + sessions
                }
                return Self.strings(try await redis.hgetall(counters))
            }
            let deadLetters = try await fixture.deadLetters()

            let credit = ["impressions", "wins_a", "wins_b", "ties"]
            let lostWalks = before.walkRecords.subtracting(after.walkRecords).count
            let creditChanged = credit.filter { before.counters[$0] != after.counters[$0] }
            let creditedAgain = credit.filter { after.counters[$0] != replayed[$0] }
            let non2xx = pages.filter { !(200..<300).contains($0.status) }.count
            var result = FaultResult()
            result.figure("maxmemory_mb", maxmemoryMB)
            result.figure("used_memory_mb", (Self.info(memory, "used_memory") ?? 0) / 1_048_576)
            result.figure("evicted_keys", after.evicted)
            result.figure("fill_requests", fillRequests)
            result.figure("components_stored_at_end", after.components)
            result.figure("pages_during_fill", pages.count)
            result.figure("non_2xx", non2xx)
            result.figure("interleaved_pages_during_fill", pages.filter(\.interleaved).count)
            result.figure("degraded_pages_during_fill", pages.filter(\.degraded).count)
            result.figure("dead_letters", deadLetters)
            result.figure("walk_records_before", before.walkRecords.count)
            result.figure("walk_records_lost", lostWalks)
            result.figure("walks_resumed_exactly", "\(resumed)/\(walks.count)")
            result.figure("impressions_credited", after.counters["impressions"] ?? "0")
            result.figure("credit_changed_by_fill", creditChanged.count)
            result.figure("credited_again_on_replay", creditedAgain.count)
            for line in inexact.prefix(5) { result.diagnose(line) }
            let problems = [
                after.evicted == 0 ? "Redis evicted nothing: it was not filled" : nil,
                non2xx > 0 ? "\(non2xx) pages were not 2xx" : nil,
                deadLetters > 0 ? "\(deadLetters) requests were dead-lettered" : nil,
                before.walkRecords.count < sessions ? "only \(before.walkRecords.count) walk records before the fill" : nil,
                lostWalks > 0 ? "\(lostWalks) walk records were lost" : nil,
                resumed < walks.count ? "\(walks.count - resumed) walks did not resume exactly" : nil,
                creditChanged.isEmpty ? nil : "the fill changed \(creditChanged)",
                creditedAgain.isEmpty ? nil : "replayed clicks changed \(creditedAgain): impression states were lost",
            ].compactMap { $0 }
            result.verdict(problems.isEmpty, problems.joined(separator: "; "))
            return result
        }
    }

    private func page(_ url: String) async throws -> [String: Any] {
        let response = try await HTTPProbe.request(url)
        guard response.status == 200, let json = response.json else {
            throw HarnessError.failed("\(url) answered \(response.status): \(response.text.prefix(200))")
        }
        return json
    }

    static func required<T>(_ value: T?, _ what: String, _ page: [String: Any]) throws -> T {
        guard let value else { throw HarnessError.failed("\(what): \(page)") }
        return value
    }

    /// A field of an `INFO` reply (`evicted_keys:12` → 12).
    static func info(_ text: String?, _ field: String) -> Int? {
        text?.split(whereSeparator: \.isNewline).first { $0.hasPrefix("\(field):") }.flatMap { Int($0.dropFirst(field.count + 1)) }
    }

    static func strings(_ fields: [String: ByteBuffer]) -> [String: String] {
        fields.mapValues { String(buffer: $0) }
    }
}
