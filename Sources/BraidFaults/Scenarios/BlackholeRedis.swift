import BraidContracts
import BraidCore
import BraidHarness
import BraidRedis
import BraidDevSupport
import Foundation

/// `blackhole-redis`: a Redis Cluster (3 primaries + 3 replicas) on one host, a gateway and a
/// worker on hosts of their own; the packets the gateway and the worker send to the primary
/// of a hot query's snapshot are dropped silently for 10 s (no RST: the failure mode command
/// timeouts exist for), while pages are asked and requests flow. The primary itself stays up
/// for the cluster, so nothing fails over. Passes when the gateway served a degraded page
/// within its command timeout plus one probe interval of the drop, the worker paused within
/// the same bound, every page was a 200, and pages interleave again after the heal; reports
/// both times and what a page cost meanwhile.
public struct BlackholeRedis: FaultScenario {
    public let name = "blackhole-redis"
    public var before: Duration = .seconds(5)
    public var blackhole: Duration = .seconds(10)
    public var after: Duration = .seconds(10)
    /// `redis.command_timeout_ms` and `worker.probe_backoff_ms` of the processes.
    public var commandTimeoutMs = 500
    public var probeIntervalMs = 500
    /// Requests published just before the drop.
    public var backlog = 3000

    public init() {}

    public func run(on stack: FaultStack) async throws -> FaultResult {
        try await NetworkWorld.with(stack, scenario: name, hosts: ["redis", "broker", "gateway", "worker"]) { world in
            let cluster = try await RedisCluster.start(in: world.world.run, name: world.keyPrefix, on: world["redis"].placement)
            let broker = try await world.broker(on: "broker")
            let environment = world.environment(
                redis: cluster.urls[0], brokers: broker.brokers,
                extra: [
                    "BRAID_REDIS_CLUSTER_NODES": cluster.urls.joined(separator: ","), "BRAID_REDIS_COMMAND_TIMEOUT_MS": "\(commandTimeoutMs)",
                    "BRAID_WORKER_PROBE_BACKOFF_MS": "\(probeIntervalMs)",
                    // The pinned snapshot must be read from Redis on every page, not from memory.
                    "BRAID_GATEWAY_NEAR_CACHE_BYTES": "0", "BRAID_GATEWAY_POINTER_CACHE_MS": "0",
                ])
            let worker = try await world.worker(on: "worker", name: "worker", environment: environment)
            let gateway = try await world.gateway(on: "gateway", environment: environment)
            let queries = ClusterLoad.hotQueries
            for query in queries { _ = try await HTTPProbe.request("\(gateway.baseURL)/v1/search?q=\(query)&per_page=10") }

            // The primary serving the first hot query's snapshot, and the hot queries it serves.
            let keys = CacheKeys(prefix: world.keyPrefix)
            let (victim, victimQueries) = try await RedisClusterAdmin.with(nodes: cluster.nodes) { admin in
                let victim = try await admin.owner(ofSlot: RedisHashSlot.slot(of: keys.ranking("featured", query: queries[0]).pointer), asSeenBy: cluster.nodes[0])
                var served: [String] = []
                for query in queries where try await admin.owner(ofSlot: RedisHashSlot.slot(of: keys.ranking("featured", query: query).pointer), asSeenBy: cluster.nodes[0]) == victim {
                    served.append(query)
                }
                return (victim, served)
            }
            let victimPort = Int(victim.split(separator: ":").last ?? "") ?? 0

            async let pages = TimedPages(baseURL: gateway.baseURL, queries: victimQueries).run(for: before + blackhole + after)
            try await Task.sleep(for: before)
            // A backlog the worker is still writing when the packets start to vanish, so it
            // has writes in flight at that moment (noticing is timed from it).
            try await world.publish((0..<backlog).map { "blackholed backlog \($0)" }, brokers: broker.brokers, as: "backlog")
            try await Task.sleep(for: .milliseconds(300))
            for host in ["gateway", "worker"] {
                try await world.network.drop(from: world[host], to: world["redis"].address, port: victimPort)
            }
            let droppedAt = ContinuousClock.now
            var workerNoticed: Duration?
            while ContinuousClock.now - droppedAt < blackhole {
                if workerNoticed == nil,
                    let metrics = await world.workerMetrics(on: "worker", timeout: .seconds(1)),
                    metrics.contains("braid_worker_paused{dependency=\"redis\"} 1")
                {
                    workerNoticed = .now - droppedAt
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            for host in ["gateway", "worker"] {
                try await world.network.undrop(from: world[host], to: world["redis"].address, port: victimPort)
            }
            let healedAt = ContinuousClock.now
            let served = await pages

            let during = served.filter { $0.at >= droppedAt && $0.at < healedAt }
            let gatewayNoticed = during.first(where: \.degraded).map { $0.at + $0.latency - droppedAt }
            let recovered = served.first { $0.at >= healedAt && !$0.degraded && $0.interleaved }.map { $0.at - healedAt }
            let bound = Duration.milliseconds(commandTimeoutMs + probeIntervalMs)
            var result = FaultResult()
            result.figure("hot_queries_on_blackholed_primary", victimQueries.count)
            result.figure("pages", served.count)
            result.figure("non_200_pages", served.filter { $0.status != 200 }.count)
            result.figure("degraded_pages", during.filter(\.degraded).count)
            result.figure("seconds_until_gateway_noticed", gatewayNoticed.map(Self.seconds) ?? "never")
            result.figure("seconds_until_worker_paused", workerNoticed.map(Self.seconds) ?? "never")
            result.figure("p50_ms_during_blackhole", TimedPages.milliseconds(during.map(\.latency), quantile: 0.5))
            result.figure("p99_ms_during_blackhole", TimedPages.milliseconds(during.map(\.latency), quantile: 0.99))
            result.figure("seconds_until_interleaved_after_heal", recovered.map(Seconds.tenths) ?? "never")
            let problems = [
                served.contains { $0.status != 200 } ? "non-200 pages" : nil,
                gatewayNoticed.map { $0 > bound } ?? true ? "the gateway did not notice within \(bound)" : nil,
                workerNoticed.map { $0 > bound } ?? true ? "the worker did not pause within \(bound)" : nil,
                recovered == nil ? "pages did not interleave again after the heal" : nil,
                worker.process.hasExited ? "the worker exited" : nil,
            ].compactMap { $0 }
            result.verdict(problems.isEmpty, problems.joined(separator: "; "))
            return result
        }
    }

    /// Seconds with two decimals: these times are fractions of a second.
    static func seconds(_ duration: Duration) -> String {
        String(format: "%.2f", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }
}
