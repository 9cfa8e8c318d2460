import BraidContracts
import BraidHarness
import BraidRedis
import Foundation

/// Search pages at 20,000, 200,000 and 1,000,000 recipes (`BRAID_BENCH_SCALE_SIZES`), with
/// walks recorded (the default). Per size, a corpus seeded by `braid seed` (or kept from an
/// earlier run: ``ScaleCorpora``) and four `braid gateway` processes on it and the run's Redis:
/// live-only (interleaving off), warm (the defaults: snapshots in the near-cache), cold
/// (near-cache and pointer cache off, so every page 1 reads its snapshot from Redis, as the
/// gateway group's cold figure) and inline (as cold, under a key prefix of its own whose keys
/// are removed before each of its requests: every page 1 finds no snapshot and computes one
/// inline, as a query's first page does). Each query of ``ScaleQueries`` is asked once on each
/// gateway first (the warm one computes and stores its snapshot inline; not timed), then:
///   - page 1 of 20, SAMPLES (9) rounds, each query on the four gateways in rotating order,
///     one request at a time (one connection), each request timed on its own;
///   - page 1 of ``ScaleQueries/headWord`` on the live-only gateway HEAD_SAMPLES (200) times
///     more, for its p99;
///   - page 50 of 20 of the `deep` queries on the warm gateway, WALKS (3) walks each from
///     page 1 through `next_cursor`; only page 50's request is timed, and it must be a page of
///     the exact walk (`walk: exact`, not capped or lost).
/// Every page must answer 200, not degraded, with items (unless its query may match nothing),
/// interleaved or live-only as its gateway is; the cold gateway must have read a snapshot from
/// Redis for every page it served.
///
/// Prints `SCALE seed` per size, each query's match count and p50 per page shape, the head
/// word's p50 and p99 over its own samples, and (at the largest size, meant to be 1,000,000;
/// the smallest for the last) the ratios of sums of p50s over the set: cold ÷ live-only,
/// inline ÷ live-only, page 50 ÷ page 1 (warm, deep queries), the slowest query ÷
/// ``ScaleQueries/headWord`` (live-only), and live-only at the largest ÷ the smallest size.
struct ScaleGroup {
    let context: BenchmarkContext

    func run() async throws {
        let settings = context.settings
        let sizes = settings.scaleSizes.sorted()
        let corpora = ScaleCorpora(context: context)
        let fingerprint = try await corpora.fingerprint()
        Report.line("SCALE corpora in \(ScaleCorpora.folder.path), generator fingerprint \(fingerprint)")
        context.say(GatewayFixture.limitsNote)
        var results = ScaleResults(queries: ScaleQueries.all)
        for size in sizes {
            let corpus = try await corpora.corpus(size, fingerprint: fingerprint)
            Report.line(
                "SCALE seed n=\(size) seconds=\(Format.fixed(corpus.seconds, 1)) bytes=\(corpus.bytes)"
                    + " index_seconds=\(corpus.indexSeconds.map { Format.fixed($0, 1) } ?? "unknown") index_bytes=\(corpus.indexBytes)"
                    + (corpus.cached ? " (cached: seeded by an earlier run)" : ""))
            try await measure(size: size, corpus: corpus.file, into: &results)
            for line in results.figures(size: size) { Report.figure(line.name, line.value) }
        }
        guard let large = sizes.last, let small = sizes.first else { return }
        if large != 1_000_000 { Report.line("SCALE note: the ratios below are at n=\(large), not 1000000") }
        if let worst = results.worst(size: large) {
            Report.line("SCALE worst n=\(large) query=\(worst.query) p50_ms=\(Format.fixed(worst.p50, 3))")
        }
        Report.ratio("scale.cold_p50.vs_live_only", Format.fixed(results.coldRatio(size: large), 3))
        Report.ratio("scale.inline_p50.vs_live_only", Format.fixed(results.inlineRatio(size: large), 3))
        Report.ratio("scale.page50_p50.vs_page1", Format.fixed(results.page50Ratio(size: large), 3))
        Report.ratio("scale.worst_query_p50.vs_head_word", Format.fixed(results.worstRatio(size: large, headWord: ScaleQueries.headWord), 3))
        Report.ratio("scale.live_p50_1m.vs_20k", Format.fixed(results.liveRatio(large: large, small: small), 3))
    }

    /// The four gateways on one corpus, and every sample of that size.
    private func measure(size: Int, corpus: URL, into results: inout ScaleResults) async throws {
        let run = context.run
        let label = ScaleQueries.label(size)
        let environment = [
            "BRAID_REDIS_URL": context.redis.url, "BRAID_KAFKA_BROKERS": context.broker.brokers,
            "BRAID_SEARCH_SQLITE_PATH": corpus.path, "BRAID_REDIS_KEY_PREFIX": "bench-scale-\(context.tag)-\(label)",
            "BRAID_KAFKA_REQUESTS_TOPIC": "braid.requests", "BRAID_KAFKA_CONSUMER_GROUP": "bench-scale-\(context.tag)",
            "BRAID_LOGGING_LEVEL": "info",
            // What a page costs, not whether it beats the default 1 s deadline: at a million
            // recipes the broadest queries can take longer.
            "BRAID_GATEWAY_LIVE_TIMEOUT_MS": "60000",
            // The bench sets its own limits, as the gateway group does (GatewayFixture.limitsNote):
            // one loopback caller, and every first miss stored so the cold pages find snapshots.
            "BRAID_GATEWAY_RATE_LIMITS_ENABLED": "false", "BRAID_GATEWAY_ADMISSION_THRESHOLD": "1",
        ]
        func gateway(_ name: String, _ extra: [String: String] = [:]) async throws -> BraidService {
            try await BraidService.gateway(
                in: run, name: "bench-scale-\(label)-\(name)", environment: environment.merging(extra) { $1 }, binary: context.braid)
        }
        let warm = try await gateway("warm")
        let liveOnly = try await gateway("live-only", ["BRAID_INTERLEAVING_ENABLED": "false"])
        let uncached = ["BRAID_GATEWAY_NEAR_CACHE_BYTES": "0", "BRAID_GATEWAY_POINTER_CACHE_MS": "0"]
        let cold = try await gateway("cold", uncached)
        let inlinePrefix = "bench-scale-\(context.tag)-\(label)-inline"
        let inline = try await gateway("inline", uncached.merging(["BRAID_REDIS_KEY_PREFIX": inlinePrefix]) { $1 })
        let gateways: [(ScaleResults.Shape, BraidService)] = [(.liveOnly, liveOnly), (.cold, cold), (.warm, warm), (.inline, inline)]
        let redis = RedisClient(configuration: try RedisConfiguration(url: context.redis.url, commandTimeout: .seconds(5)))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await redis.run() }
            defer { group.cancelAll() }
            try await redis.waitUntilConnected()
            try await measure(size: size, gateways: gateways, forget: { try await Self.forget(prefix: inlinePrefix, in: redis) }, into: &results)
        }
        for (_, service) in gateways {
            reportWarnings(service)
            await service.stop()
        }
    }

    /// Removes every key under `prefix`: the inline gateway's next page finds no snapshot.
    private static func forget(prefix: String, in redis: RedisClient) async throws {
        let keys = try await redis.scanKeys(matching: "\(prefix):*")
        for key in keys { _ = try await redis.del([key]) }
    }

    /// Every sample of one size on its gateways; `forget` runs before each inline page.
    private func measure(
        size: Int, gateways: [(ScaleResults.Shape, BraidService)], forget: () async throws -> Void, into results: inout ScaleResults
    ) async throws {
        let label = ScaleQueries.label(size)
        let service = { (shape: ScaleResults.Shape) in gateways.first { $0.0 == shape }!.1 }
        let (warm, liveOnly, cold) = (service(.warm), service(.liveOnly), service(.cold))

        // Not timed: the warm gateway first, which ranks and stores each snapshot inline; then
        // every query once more everywhere (connections, statement caches, the OS's file cache).
        for query in ScaleQueries.all {
            let page = try await self.page(warm, ScaleQueries.path(query), interleaved: true, what: "page 1 of \(query.text) (n=\(size))", mayBeEmpty: query.mayBeEmpty)
            Report.figure("scale.\(label).matches.\(query.name)", Self.int(page.json["total"]) ?? -1)
            if page.json["total_is_lower_bound"] as? Bool == true {
                Report.line("SCALE lower_bound n=\(size) query=\(query.name): its total is a lower bound (search.xapian.count_at_least)")
            }
        }
        for query in ScaleQueries.all {
            for (shape, service) in gateways {
                _ = try await page(
                    service, ScaleQueries.path(query), interleaved: shape != .liveOnly, what: "page 1 of \(query.text) (n=\(size))",
                    mayBeEmpty: query.mayBeEmpty)
            }
        }
        let coldBefore = try await coldMisses(cold)
        for round in 0..<context.settings.scaleSamples {
            for (index, query) in ScaleQueries.all.enumerated() {
                // Rotating order, so drift on the shared machine hits every shape alike.
                let shift = (round + index) % gateways.count
                for (shape, service) in gateways[shift...] + gateways[..<shift] {
                    if shape == .inline { try await forget() }
                    let timed = try await page(
                        service, ScaleQueries.path(query), interleaved: shape != .liveOnly, what: "page 1 of \(query.text) (n=\(size))",
                        mayBeEmpty: query.mayBeEmpty)
                    results.record(size: size, shape, query: query.name, milliseconds: timed.milliseconds)
                }
            }
        }
        let coldReads = try await coldMisses(cold) - coldBefore
        let coldPages = results.count(size: size, .cold)
        guard coldReads >= coldPages else {
            throw BenchmarkError("the cold gateway read only \(coldReads) snapshots from Redis for \(coldPages) pages (n=\(size))")
        }

        let head = ScaleQueries.all.first { $0.name == ScaleQueries.headWord }!
        for _ in 0..<context.settings.scaleHeadSamples {
            let timed = try await page(liveOnly, ScaleQueries.path(head), interleaved: false, what: "page 1 of \(head.text) (n=\(size))")
            results.recordHead(size: size, milliseconds: timed.milliseconds)
        }

        for query in ScaleQueries.all where query.deep {
            for _ in 0..<context.settings.scaleWalks {
                let milliseconds = try await page50(warm, query, size: size)
                results.record(size: size, .page50, query: query.name, milliseconds: milliseconds)
            }
        }
    }

    /// One walk from page 1 to page 50; the time of page 50's request.
    private func page50(_ service: BraidService, _ query: ScaleQuery, size: Int) async throws -> Double {
        var cursor: String?
        for number in 1...50 {
            let what = "page \(number) of \(query.text) (n=\(size)) through next_cursor"
            let page = try await self.page(service, ScaleQueries.path(query, cursor: cursor), interleaved: true, what: what)
            guard page.json["walk"] as? String == "exact" else {
                throw BenchmarkError("\(what) is not a page of an exact walk: walk=\(page.json["walk"] ?? "none")")
            }
            if number == 50 {
                guard Self.int(page.json["page"]) == 50, (page.json["items"] as? [Any])?.count == 20 else {
                    throw BenchmarkError("\(what) is not page 50 of 20: \(page.text.prefix(600))")
                }
                return page.milliseconds
            }
            guard let next = page.json["next_cursor"] as? String else { throw BenchmarkError("\(what) has no next_cursor") }
            cursor = next
        }
        preconditionFailure("unreachable")
    }

    struct TimedPage {
        var json: [String: Any]
        var text: String
        var milliseconds: Double
    }

    /// One request, timed from before it is sent to its last byte; it must be a page of the
    /// gateway's kind, not degraded, with items unless `mayBeEmpty`.
    private func page(_ service: BraidService, _ path: String, interleaved: Bool, what: String, mayBeEmpty: Bool = false) async throws -> TimedPage {
        let started = ContinuousClock.now
        let response = try await HTTPProbe.request(service.baseURL + path, timeout: .seconds(120))
        let milliseconds = Format.seconds(ContinuousClock.now - started) * 1_000
        let text = String(response.text.prefix(600))
        guard response.status == 200, let json = response.json else {
            throw BenchmarkError("\(what) on \(service.name) answered \(response.status): \(text)")
        }
        let snapshot = (json["interleaving"] as? [String: Any])?["snapshot"]
        let hasSnapshot = snapshot != nil && !(snapshot is NSNull)
        guard hasSnapshot == interleaved, json["degraded"] as? Bool != true, mayBeEmpty || !((json["items"] as? [Any]) ?? []).isEmpty else {
            throw BenchmarkError("\(what) on \(service.name) is not a \(interleaved ? "n interleaved" : " live-only") page with items: \(text)")
        }
        return TimedPage(json: json, text: text, milliseconds: milliseconds)
    }

    /// A JSON number as an Int (JSONSerialization's numbers are NSNumbers on Linux).
    private static func int(_ value: Any?) -> Int? {
        (value as? NSNumber)?.intValue ?? (value as? Int)
    }

    /// Snapshots a gateway read from Redis (near-cache misses, the unlabelled sample).
    private func coldMisses(_ gateway: BraidService) async throws -> Int {
        let response = try await HTTPProbe.request("\(gateway.baseURL)/metrics")
        guard response.status == 200 else { throw BenchmarkError("GET \(gateway.baseURL)/metrics answered \(response.status)") }
        return Int(PrometheusText.sumUnlabelled(MetricName.gatewayNearCacheMisses.rawValue, in: response.text))
    }

    /// Says (without failing) when a gateway logged warnings or errors, with the first five.
    private func reportWarnings(_ service: BraidService) {
        guard let log = service.process.log, let text = try? String(contentsOf: log, encoding: .utf8) else { return }
        let lines = text.split(separator: "\n").filter { $0.contains("warning") || $0.contains("error") || $0.contains("critical") }
        guard !lines.isEmpty else { return }
        context.say("\(log.lastPathComponent) has warnings or errors:\n" + lines.prefix(5).joined(separator: "\n"))
    }
}
