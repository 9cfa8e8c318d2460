import BraidContracts
import BraidHarness
import Foundation

/// Three `braid gateway` processes sharing one Redis behind HAProxy (``GatewayFleet``: round
/// robin, health-checked on `/readyz`), with rate limits and admission on. It prints:
/// - `RATIO fleet.rate_limit.<kind>.admitted.vs_allowed`: what one caller offered 3× its rate
///   through the balancer for FLEET_SECONDS (30) was admitted, ÷ (rate × T + burst) (target
///   ≤ 1.25), for a verified user (`identity.mode: proxy`) and for an address read from
///   X-Forwarded-For (HAProxy appends its peer, 127.0.0.1, a `gateway.trusted_proxies` address);
/// - `FIGURE fleet.sightings_to_admit`: requests for a fresh query, one gateway after the other
///   (addressed directly), until its snapshot is computed (the admission threshold, 3, counted
///   across gateways);
/// - `FIGURE fleet.computations_for_one_query`: snapshot computations (leases taken) when 8
///   requests on each gateway (addressed directly) miss one admitted query at once (target 1).
struct FleetGroup {
    let context: BenchmarkContext
    static let gateways = 3
    static let rate = 20.0
    static let burst = 40
    static let threshold = 3

    static let configuration = """
        gateway:
          trusted_proxies: [127.0.0.1/32]
          rate_limits: {per_identity: {rate_per_second: \(rate), burst: \(burst)}, per_address: {rate_per_second: \(rate), burst: \(burst)}}
          admission: {threshold: \(threshold)}
        identity:
          mode: proxy

        """

    func run() async throws {
        let run = context.run
        let corpus = run.file("fleet-corpus.sqlite")
        try await context.seed(corpus)
        // The trusted proxy's secret, as strong as the gateway requires.
        let proxySecret = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let config = run.file("fleet-bench.yaml")
        try Self.configuration.write(to: config, atomically: true, encoding: .utf8)
        let environment = [
            "BRAID_REDIS_URL": context.redis.url, "BRAID_KAFKA_BROKERS": context.broker.brokers,
            "BRAID_SEARCH_SQLITE_PATH": corpus.path, "BRAID_REDIS_KEY_PREFIX": "bench-fleet-\(context.tag)",
            "BRAID_KAFKA_REQUESTS_TOPIC": "braid.requests", "BRAID_IDENTITY_PROXY_SECRET": proxySecret,
            "BRAID_LOGGING_LEVEL": "info",
        ]
        let fleet = try await GatewayFleet.start(
            in: run, count: Self.gateways, name: "fleet-gateway", environment: environment, arguments: ["--config", config.path],
            binary: context.braid)
        let urls = fleet.members.map(\.baseURL)
        let seconds = Double(context.settings.fleetSeconds)
        let allowed = Self.rate * seconds + Double(Self.burst)
        for (kind, headers) in [
            ("identity", [("X-Braid-User", "fleet-user"), ("X-Braid-Proxy-Secret", proxySecret)]),
            ("address", [("X-Forwarded-For", "198.51.100.7")]),
        ] {
            let (admitted, refused) = try await offer(fleet.baseURL, headers: headers, perSecond: 3 * Self.rate, seconds: seconds)
            context.say("fleet: \(kind): \(admitted) admitted, \(refused) refused in \(Int(seconds)) s; rate × T + burst = \(Int(allowed))")
            Report.figure("fleet.rate_limit.\(kind).admitted", admitted)
            Report.ratio("fleet.rate_limit.\(kind).admitted.vs_allowed", Format.fixed(Double(admitted) / allowed, 3))
        }
        // Each part below asks with a caller of its own, far under the limits.
        Report.figure("fleet.sightings_to_admit", try await sightings(urls))
        Report.figure("fleet.computations_for_one_query", try await computations(urls))
        await fleet.stop()
    }

    /// Offers `perSecond` requests of one caller to `base` (the balancer) for `seconds`.
    private func offer(_ base: String, headers: [(String, String)], perSecond: Double, seconds: Double) async throws -> (Int, Int) {
        let clock = ContinuousClock()
        let start = clock.now
        let total = Int(perSecond * seconds)
        // Paced by a schedule, with up to 16 requests in flight, so a slow answer does not slow the offer.
        return try await withThrowingTaskGroup(of: Int.self) { group in
            var admitted = 0, refused = 0, sent = 0
            func tally(_ status: Int) throws {
                switch status {
                case 200: admitted += 1
                case 429: refused += 1
                default: throw BenchmarkError("fleet: a page answered \(status), not 200 or 429")
                }
            }
            while sent < total {
                try await Task.sleep(until: start + .seconds(Double(sent) / perSecond), clock: clock)
                if sent >= 16, let status = try await group.next() { try tally(status) }
                let url = "\(base)/v1/search?q=curry&per_page=10"
                group.addTask { try await HTTPProbe.request(url, headers: headers).status }
                sent += 1
            }
            for try await status in group { try tally(status) }
            return (admitted, refused)
        }
    }

    /// Requests for a fresh query, one gateway after the other, until a page carries a snapshot.
    private func sightings(_ urls: [String]) async throws -> Int {
        let query = "fleet sighting \(context.tag)"
        for request in 1...(3 * Self.threshold) {
            let url = "\(urls[(request - 1) % urls.count])/v1/search?q=\(GatewayFixture.quotePlus(query))&per_page=10"
            let page = try await HTTPProbe.request(url, headers: [("X-Forwarded-For", "198.51.100.8")])
            guard page.status == 200 else { throw BenchmarkError("fleet: sighting page answered \(page.status): \(page.text)") }
            if (page.json?["interleaving"] as? [String: Any])?["snapshot"] is Int { return request }
        }
        throw BenchmarkError("fleet: no snapshot for a query seen \(3 * Self.threshold) times")
    }

    /// Snapshot computations across the fleet when 8 requests per gateway miss one admitted query at once.
    private func computations(_ urls: [String]) async throws -> Int {
        let query = "fleet stampede \(context.tag)"
        let before = try await leasesTaken(urls)
        // Admitted first (threshold − 1 sightings), so the stampede's first misses compute.
        for sighting in 0..<(Self.threshold - 1) {
            _ = try await HTTPProbe.request(
                "\(urls[sighting % urls.count])/v1/search?q=\(GatewayFixture.quotePlus(query))&per_page=10", headers: [("X-Forwarded-For", "198.51.100.9")])
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for url in urls {
                for client in 0..<8 {
                    group.addTask {
                        let page = try await HTTPProbe.request(
                            "\(url)/v1/search?q=\(GatewayFixture.quotePlus(query))&per_page=10", headers: [("X-Forwarded-For", "198.51.100.\(20 + client)")])
                        guard page.status == 200 else { throw BenchmarkError("fleet: stampede page answered \(page.status)") }
                    }
                }
            }
            try await group.waitForAll()
        }
        return try await leasesTaken(urls) - before
    }

    private func leasesTaken(_ urls: [String]) async throws -> Int {
        var taken = 0.0
        for url in urls {
            let metrics = try await HTTPProbe.request("\(url)/metrics").text
            taken += PrometheusText.sum("\(MetricName.gatewaySnapshotLeases.rawValue){outcome=\"taken\"}", in: metrics)
        }
        return Int(taken)
    }
}
