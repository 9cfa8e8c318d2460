import BraidContracts
import BraidHarness
import Foundation
import NIOHTTP1

/// Gateway throughput under wrk on loopback: four `braid gateway` processes on the same Redis,
/// Kafka and corpus: one interleaving (the defaults), one with interleaving.enabled=false
/// (live-only pages that never touch Redis; the baseline), a limited one (interleaving with
/// the fleet-wide rate limits and admission on: every request takes a token of its local
/// bucket and of the caller's shared one, at a rate wrk stays under, and each query was
/// admitted by the shared sketch) and a cold one (near-cache, pointer cache and key tracking
/// off, so every page reads its snapshot from Redis). Measured, one after the other:
///   - search page 1 (per_page=20, six queries in turn): interleaved ÷ live-only and limited ÷
///     live-only, requests/s and p99 latency; every snapshot exists and sits in the near-cache
///     before the clock runs;
///   - one cache-hit component (first page), and a batchGet of 6 cache-hit components, each
///     ÷ GET /healthz, all on the interleaved gateway (requests/s, p99 reported);
///   - search page 1 on the cold gateway ÷ the live-only gateway, median latency with one
///     connection (the critical path of one page: snapshot read and live query in series or
///     in parallel), COLD_CONNECTIONS (1), each query on its own for COLD_SECONDS (2) in
///     COLD_ROUNDS (9) rounds; the ratio is of the sums over queries of the median p50s;
///   - the interleaved gateway's peak RSS (VmHWM) after all of that load;
///   - pointer staleness with key tracking (``TrackingStaleness``), p50 and p99 over 1,000
///     changes, after the load.
/// Each pair is measured in ROUNDS rounds in alternating order (A B, B A, ...) so drift on the
/// shared machine hits both sides alike; each RATIO is the median of the rounds' ratios, and
/// the ratio of the means is printed beside it as a FIGURE (`….ratio_of_means`).
struct GatewayGroup {
    let context: BenchmarkContext

    /// The counters of the interleaved gateway that say the load measured what was meant.
    static let counters = [
        MetricName.gatewayNearCacheMisses.rawValue, MetricName.gatewayComponentCacheMisses.rawValue,
        MetricName.gatewayComponentCacheHits.rawValue, MetricName.gatewayDegradedPages.rawValue,
    ]

    func run() async throws {
        let settings = context.settings
        let run = context.run
        let wrk = try Wrk(run: run)
        let corpus = run.file("gateway-corpus.sqlite")
        try await context.seed(corpus)
        let (config, environment) = try GatewayFixture.setUp(context, name: "gateway", corpus: corpus)
        func gateway(_ name: String, _ extra: [String: String] = [:]) async throws -> BraidService {
            try await BraidService.gateway(
                in: run, name: "bench-gateway-\(name)", arguments: ["--config", config.path],
                environment: environment.merging(extra) { $1 }, binary: context.braid)
        }
        let interleaved = try await gateway("interleaved")
        let liveOnly = try await gateway("live-only", ["BRAID_INTERLEAVING_ENABLED": "false"])
        // The limits on, and wrk's one address far under them: their cost, not their refusals.
        let limited = try await gateway(
            "limited",
            [
                "BRAID_GATEWAY_RATE_LIMITS_ENABLED": "true", "BRAID_GATEWAY_RATE_LIMITS_PER_ADDRESS_RATE_PER_SECOND": "1000000",
                "BRAID_GATEWAY_RATE_LIMITS_PER_ADDRESS_BURST": "10000000", "BRAID_GATEWAY_ADMISSION_THRESHOLD": "2",
            ])
        let cold = try await gateway(
            "cold", ["BRAID_GATEWAY_NEAR_CACHE_BYTES": "0", "BRAID_GATEWAY_POINTER_CACHE_MS": "0", "BRAID_GATEWAY_KEY_TRACKING": "false"])

        // Cache-hit components: a worker materializes the six (not timed), then leaves before the load.
        let workerMetricsPort = try Ports.free()
        let worker = try await BraidService.worker(
            in: run, name: "bench-gateway-worker", arguments: ["--config", config.path],
            environment: environment.merging(["BRAID_WORKER_METRICS_PORT": "\(workerMetricsPort)"]) { $1 }, assignedFrom: "braid.requests",
            binary: context.braid)
        for flags in GatewayFixture.publications {
            let (status, output) = try await ChildProcess.run(
                context.braid, ["publish", "--config", config.path, "--feed", "bench"] + flags, environment: environment)
            guard status == 0 else { throw BenchmarkError("braid publish \(flags.joined(separator: " ")) failed: \(output)") }
        }
        let batchURL = "\(interleaved.baseURL)/v1/feeds/bench/components:batchGet"
        try await waitUntilAllCached(batchURL)
        await worker.stop()

        // Search pages: every query once on all gateways (the interleaved one computes and stores
        // each snapshot inline, then keeps it in its near-cache), checked to be interleaved or live-only.
        for path in GatewayFixture.searchPaths {
            // The limited gateway admits a query on its second sighting: the first page is live-only.
            _ = try? await HTTPProbe.request(limited.baseURL + path)
            for (service, kind, what) in [
                (interleaved, GatewayPages.Kind.interleaved, "the interleaved gateway is not an interleaved page of 20"),
                (liveOnly, .live, "the live-only gateway is not a live-only page of 20"),
                (limited, .interleaved, "the limited gateway is not an interleaved page of 20"),
                (cold, .interleaved, "the cold gateway is not an interleaved page of 20"),
            ] {
                let page = try? await HTTPProbe.request(service.baseURL + path)
                guard let page, (200..<300).contains(page.status), GatewayPages.isPage(page.body, kind) else {
                    throw BenchmarkError("GET \(path) on \(what)")
                }
            }
        }
        let searchScript = run.file("gateway-search.lua")
        try GatewayFixture.searchScript.write(to: searchScript, atomically: true, encoding: .utf8)
        let componentURL = "\(interleaved.baseURL)/v1/feeds/bench/components/recommended?user=u1"
        let component = try? await HTTPProbe.request(componentURL)
        guard let component, (200..<300).contains(component.status), GatewayPages.isCachedComponent(component.body) else {
            throw BenchmarkError("GET \(componentURL) is not a cached first page of 10: \(component?.text.prefix(600) ?? "no answer")")
        }
        let batchScript = run.file("gateway-batch.lua")
        try GatewayFixture.batchScript.write(to: batchScript, atomically: true, encoding: .utf8)

        // Not timed: warm-up with the same settings (connections, code paths, allocator).
        let connections = settings.gatewayConnections
        let warmup = settings.gatewayWarmupSeconds
        _ = try await wrk.measure("warmup-live", seconds: warmup, url: "\(liveOnly.baseURL)/", script: searchScript, connections: connections)
        _ = try await wrk.measure("warmup-interleaved", seconds: warmup, url: "\(interleaved.baseURL)/", script: searchScript, connections: connections)
        _ = try await wrk.measure("warmup-limited", seconds: warmup, url: "\(limited.baseURL)/", script: searchScript, connections: connections)
        _ = try await wrk.measure("warmup-batch", seconds: warmup, url: batchURL, script: batchScript, connections: connections)
        _ = try await wrk.measure("warmup-hello", seconds: warmup, url: "\(interleaved.baseURL)/healthz", connections: connections)
        _ = try await wrk.measure("warmup-component", seconds: warmup, url: componentURL, connections: connections)
        _ = try await wrk.measure(
            "warmup-cold", seconds: warmup, url: "\(cold.baseURL)/", script: searchScript, connections: settings.gatewayColdConnections)

        let before = try await counters(interleaved)
        var results = GatewayResults()
        func measure(_ name: String, _ url: String, _ script: URL? = nil) async throws {
            let result = try await wrk.measure(name, seconds: settings.gatewaySeconds, url: url, script: script, connections: connections)
            results.append(name, result)
            Report.figure("gateway.\(name).rps", result.rps)
            Report.figure("gateway.\(name).p99_ms", result.p99)
            Report.figure("gateway.\(name).p50_ms", result.p50)
        }
        // Rounds in alternating order (A B, B A, ...), so drift on the shared machine hits both alike.
        for round in 1...settings.gatewayRounds {
            if round % 2 == 1 {
                try await measure("search_live_only", "\(liveOnly.baseURL)/", searchScript)
                try await measure("search_interleaved", "\(interleaved.baseURL)/", searchScript)
                try await measure("search_limited", "\(limited.baseURL)/", searchScript)
            } else {
                try await measure("search_limited", "\(limited.baseURL)/", searchScript)
                try await measure("search_interleaved", "\(interleaved.baseURL)/", searchScript)
                try await measure("search_live_only", "\(liveOnly.baseURL)/", searchScript)
            }
        }
        for round in 1...settings.gatewayRounds {
            if round % 2 == 1 {
                try await measure("hello", "\(interleaved.baseURL)/healthz")
                try await measure("component", componentURL)
                try await measure("batchget", batchURL, batchScript)
            } else {
                try await measure("batchget", batchURL, batchScript)
                try await measure("component", componentURL)
                try await measure("hello", "\(interleaved.baseURL)/healthz")
            }
        }

        // Cold pages: one connection, so the median is the latency of one page's critical path.
        // Each query on its own: a p50 over six queries in turn falls between cheap and
        // expensive queries' latencies and jumps between rounds. COLD_ROUNDS rounds, each
        // query's two sides in alternating order.
        var coldPages = ColdPages(queries: GatewayFixture.queries)
        let paths = GatewayFixture.searchPaths
        func coldOnce(_ side: ColdPages.Side, _ service: BraidService, query: Int) async throws {
            let result = try await wrk.measure(
                "\(side.rawValue)-\(query)", seconds: settings.gatewayColdSeconds, url: service.baseURL + paths[query],
                connections: settings.gatewayColdConnections)
            coldPages.record(side, query: query, result)
        }
        let coldBefore = try await coldMisses(cold)
        for round in 1...settings.gatewayColdRounds {
            for query in paths.indices {
                if (round + query) % 2 == 1 {
                    try await coldOnce(.coldLiveOnly, liveOnly, query: query)
                    try await coldOnce(.cold, cold, query: query)
                } else {
                    try await coldOnce(.cold, cold, query: query)
                    try await coldOnce(.coldLiveOnly, liveOnly, query: query)
                }
            }
        }
        let coldReads = try await coldMisses(cold) - coldBefore
        guard coldReads >= coldPages.coldPages else {
            throw BenchmarkError("the cold gateway read only \(coldReads) snapshots from Redis for \(coldPages.coldPages) pages")
        }

        // What was measured is what was meant: snapshots from the near-cache, components from
        // Redis, no page degraded to live-only by a Redis error.
        let after = try await counters(interleaved)
        func delta(_ name: String) -> Int { (after[name] ?? 0) - (before[name] ?? 0) }
        guard delta(MetricName.gatewayNearCacheMisses.rawValue) == 0 else {
            throw BenchmarkError("the interleaved gateway missed its near-cache \(delta(MetricName.gatewayNearCacheMisses.rawValue)) times under load")
        }
        guard delta(MetricName.gatewayComponentCacheMisses.rawValue) == 0 else {
            throw BenchmarkError("\(delta(MetricName.gatewayComponentCacheMisses.rawValue)) components were not in Redis under load")
        }
        guard delta(MetricName.gatewayDegradedPages.rawValue) == 0 else {
            throw BenchmarkError("\(delta(MetricName.gatewayDegradedPages.rawValue)) search pages degraded to live-only under load")
        }
        let batchGets = results.requests("batchget")
        let components = results.requests("component")
        guard delta(MetricName.gatewayComponentCacheHits.rawValue) >= 6 * batchGets + components else {
            throw BenchmarkError(
                "only \(delta(MetricName.gatewayComponentCacheHits.rawValue)) component cache hits for \(batchGets) batchGets of 6 and \(components) components")
        }
        let batch = try? await HTTPProbe.request(batchURL, method: .POST, body: Data(GatewayFixture.batchBody.utf8))
        guard let batch, (200..<300).contains(batch.status), GatewayPages.isAllCached(batch.body) else {
            throw BenchmarkError("after the load, batchGet entries are not all cached: \(batch?.text.prefix(600) ?? "no answer")")
        }
        let peakKiB = try peakResidentKiB(interleaved.process.pid)
        guard try await rejections(limited) == 0 else { throw BenchmarkError("the limited gateway refused requests: the load measured refusals") }
        for service in [interleaved, liveOnly, limited, cold] { reportWarnings(service) }

        Report.figure("gateway.search_live_only.mean_rps", results.mean("search_live_only", \.rps))
        Report.figure("gateway.search_interleaved.mean_rps", results.mean("search_interleaved", \.rps))
        Report.figure("gateway.search_limited.mean_rps", results.mean("search_limited", \.rps))
        Report.figure("gateway.search_live_only.mean_p99_ms", results.mean("search_live_only", \.p99))
        Report.figure("gateway.search_interleaved.mean_p99_ms", results.mean("search_interleaved", \.p99))
        Report.figure("gateway.hello.mean_rps", results.mean("hello", \.rps))
        Report.figure("gateway.batchget.mean_rps", results.mean("batchget", \.rps))
        Report.figure("gateway.batchget.mean_p99_ms", results.mean("batchget", \.p99))
        Report.figure("gateway.component.mean_rps", results.mean("component", \.rps))
        Report.figure("gateway.component.mean_p99_ms", results.mean("component", \.p99))
        for line in coldPages.lines() { Report.line("\(line.kind) \(line.name) \(line.value)") }
        Report.figure("gateway.peak_rss_mib", Format.fixed(Double(peakKiB) / 1024, 1))
        for (name, a, b, figure) in [
            ("gateway.interleaved_rps.vs_live_only", "search_interleaved", "search_live_only", \WrkResult.rps),
            ("gateway.interleaved_p99.vs_live_only", "search_interleaved", "search_live_only", \.p99),
            ("gateway.limited_rps.vs_live_only", "search_limited", "search_live_only", \.rps),
            ("gateway.limited_p99.vs_live_only", "search_limited", "search_live_only", \.p99),
            ("gateway.batchget_rps.vs_hello", "batchget", "hello", \.rps),
            ("gateway.component_rps.vs_hello", "component", "hello", \.rps),
        ] {
            Report.figure("\(name).ratio_of_means", results.ratio(a, b, figure))
            Report.ratio(name, results.pairedRatio(a, b, figure))
        }
        for service in [interleaved, liveOnly, limited, cold] { await service.stop() }
        try await TrackingStaleness(context: context).run(changes: 1_000)
    }
}
