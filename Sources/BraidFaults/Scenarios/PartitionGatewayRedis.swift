import BraidHarness
import BraidDevSupport
import Foundation

/// `partition-gateway-redis`: the gateway, Redis and the broker each on a host of their own;
/// the gateway's link to Redis is cut for 10 s (Redis's switch port down: packets vanish, no
/// RST) while pages are asked one after the other and sessions are walked. Passes when every
/// page is a 200, every degraded page is live-only, no page takes longer than the live deadline
/// plus 50 ms, a page interleaves again within 5 s of the heal without a restart, and the walks
/// that crossed the partition said their walk state was lost instead of repeating a document.
public struct PartitionGatewayRedis: FaultScenario {
    public let name = "partition-gateway-redis"
    public var before: Duration = .seconds(5)
    public var partition: Duration = .seconds(10)
    public var after: Duration = .seconds(10)
    /// `gateway.live_timeout_ms` of the gateway: the bound on a page.
    public var liveTimeoutMs = 1_000

    public init() {}

    static let queries = ["curry", "pasta", "salmon", "cake", "soup", "bread", "tomato", "egg"]

    public func run(on stack: FaultStack) async throws -> FaultResult {
        try await NetworkWorld.with(stack, scenario: name, hosts: ["redis", "broker", "gateway"]) { world in
            let redis = try await world.redis(on: "redis")
            let broker = try await world.broker(on: "broker")
            let gateway = try await world.gateway(
                on: "gateway",
                environment: world.environment(
                    redis: redis.url, brokers: broker.brokers, extra: ["BRAID_GATEWAY_LIVE_TIMEOUT_MS": "\(liveTimeoutMs)"]))
            // The hot queries' snapshots, computed inline on their first pages.
            for query in Self.queries {
                _ = try await HTTPProbe.request("\(gateway.baseURL)/v1/search?q=\(query)&per_page=10")
            }

            let walker = SessionWalker(baseURL: gateway.baseURL, queries: Self.queries)
            let walks = walker.start(for: before + partition + after)
            async let pages = TimedPages(baseURL: gateway.baseURL, queries: Self.queries).run(for: before + partition + after)
            try await Task.sleep(for: before)
            try await world.network.cut(world["redis"])
            let cutAt = ContinuousClock.now
            try await Task.sleep(for: partition)
            try await world.network.heal(world["redis"])
            let healedAt = ContinuousClock.now
            let served = await pages
            let sessions = await walks.finish()

            let during = served.filter { $0.at >= cutAt && $0.at < healedAt }
            let bound = Duration.milliseconds(liveTimeoutMs + 50)
            let slowest = served.map(\.latency).max() ?? .zero
            let recovered = served.first { $0.at >= healedAt && !$0.degraded && $0.interleaved }.map { $0.at - healedAt }
            let bySession = Dictionary(grouping: sessions.visits, by: \.session)
            let crossed = bySession.values.filter { visits in visits.contains { $0.at >= cutAt && $0.at < healedAt } }
            let lost = crossed.filter { visits in visits.contains { $0.page?.walk == "lost" } }

            var result = FaultResult()
            result.figure("pages", served.count)
            result.figure("pages_during_partition", during.count)
            result.figure("non_200_pages", served.filter { $0.status != 200 }.count)
            result.figure("degraded_pages", served.filter(\.degraded).count)
            result.figure("degraded_pages_not_live_only", served.filter { $0.degraded && $0.interleaved }.count)
            result.figure("p50_ms_during_partition", TimedPages.milliseconds(during.map(\.latency), quantile: 0.5))
            result.figure("p99_ms_during_partition", TimedPages.milliseconds(during.map(\.latency), quantile: 0.99))
            result.figure("slowest_page_ms", TimedPages.milliseconds([slowest], quantile: 1))
            result.figure("seconds_until_interleaved_after_heal", recovered.map(Seconds.tenths) ?? "never")
            result.figure("sessions", sessions.totals.sessions)
            result.figure("sessions_across_partition", crossed.count)
            result.figure("sessions_reporting_lost_walk_state", lost.count)
            result.figure("sessions_with_duplicates", sessions.totals.sessionsWithDuplicates)
            let problems = [
                served.contains { $0.status != 200 } ? "non-200 pages" : nil,
                served.contains { $0.degraded && $0.interleaved } ? "a degraded page was interleaved" : nil,
                during.contains(where: \.degraded) ? nil : "no page was degraded during the partition",
                slowest > bound ? "a page took longer than the live deadline + 50 ms" : nil,
                recovered.map { $0 > .seconds(5) } ?? true ? "not interleaved again within 5 s of the heal" : nil,
                sessions.totals.sessionsWithDuplicates > 0 ? "a session showed a document twice" : nil,
                crossed.isEmpty || lost.isEmpty ? "no walk across the partition reported its walk state lost" : nil,
            ].compactMap { $0 }
            result.verdict(problems.isEmpty, problems.joined(separator: "; "))
            return result
        }
    }
}
