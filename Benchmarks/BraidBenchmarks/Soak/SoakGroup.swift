import BraidConfig
import BraidContracts
import BraidHarness
import BraidRedis
import BraidWiring
import Foundation

/// A soak: one `braid gateway` and one `braid worker` under ``SoakTraffic`` (search walks with
/// events, feeds, components; their misses publish precompute requests that the worker
/// materializes) for SOAK_SECONDS (1,200). The gateway's near-cache is bounded at 12 MiB: below
/// the soak's working set of snapshots (about 16 MB; its queries come from a finite vocabulary), so
/// eviction goes on all soak long, and reached after the first half minute rather than within the
/// process's first seconds, while everything else still warms up (a 4 MiB bound was full at 10 s).
/// Every 10 s it samples the gateway's resident memory (VmRSS)
/// and open descriptors, its near-cache bytes and SQLite page caches (from /metrics) and
/// Redis's `used_memory`.
///
/// Resident memory is judged from the first sample at which the snapshot near-cache holds 90 %
/// of its bound: `RATIO soak.rss_end.vs_at_bound` is the last sample ÷ that one (target ≤ 1.05),
/// and the growth rate is the least-squares slope of the samples since then, in MiB an hour.
struct SoakGroup {
    let context: BenchmarkContext
    static let nearCacheBytes = 12 << 20

    struct Sample {
        var seconds: Double
        var rssKiB: Int
        var descriptors: Int
        var snapshotCacheBytes: Double
        var componentCacheBytes: Double
        var sqliteCacheBytes: Double
        var redisBytes: Int
    }

    func run() async throws {
        let run = context.run
        let corpus = run.file("soak-corpus.sqlite")
        try await context.seed(corpus)
        let (config, shared) = try GatewayFixture.setUp(context, name: "soak", corpus: corpus)
        let environment = shared.merging(["BRAID_GATEWAY_NEAR_CACHE_BYTES": "\(Self.nearCacheBytes)"]) { $1 }
        let gateway = try await BraidService.gateway(
            in: run, name: "soak-gateway", arguments: ["--config", config.path], environment: environment, binary: context.braid)
        let worker = try await BraidService.worker(
            in: run, name: "soak-worker", arguments: ["--config", config.path],
            environment: environment.merging(["BRAID_WORKER_METRICS_PORT": "\(try Ports.free())"]) { $1 }, assignedFrom: "braid.requests",
            binary: context.braid)
        let redis = RedisClient(configuration: try RedisConfiguration(url: context.redis.url, commandTimeout: .seconds(5)))
        let seconds = context.settings.soakSeconds
        context.say("soak: \(seconds) s of mixed traffic on \(gateway.baseURL)")
        let start = ContinuousClock.now
        let deadline = start + .seconds(seconds)
        let traffic = SoakTraffic(baseURL: gateway.baseURL, feed: "bench", concurrency: 8)
        let (counts, samples) = try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await redis.run() }
            defer { group.cancelAll() }
            try await redis.waitUntilConnected()
            async let counts = traffic.run(until: deadline)
            var samples: [Sample] = []
            while ContinuousClock.now < deadline {
                try await Task.sleep(for: .seconds(10))
                samples.append(try await sample(gateway, redis: redis, since: start))
            }
            return (await counts, samples)
        }
        await worker.stop()
        await gateway.stop()
        try report(counts, samples)
    }

    private func sample(_ gateway: BraidService, redis: RedisClient, since start: ContinuousClock.Instant) async throws -> Sample {
        let pid = gateway.process.pid
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let rss = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
            .flatMap { $0.split(whereSeparator: \.isWhitespace).dropFirst().first.flatMap { Int($0) } }
        guard let rss else { throw BenchmarkError("no VmRSS for the soak gateway (pid \(pid))") }
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
        let metrics = try await HTTPProbe.request("\(gateway.baseURL)/metrics").text
        let memory = try await redis.send(["INFO", "memory"]).string ?? ""
        let used = memory.split(whereSeparator: \.isNewline).first { $0.hasPrefix("used_memory:") }
            .flatMap { Int($0.dropFirst("used_memory:".count)) } ?? 0
        return Sample(
            seconds: Double((ContinuousClock.now - start).components.seconds), rssKiB: rss, descriptors: descriptors,
            snapshotCacheBytes: PrometheusText.sumUnlabelled(MetricName.gatewayNearCacheBytes.rawValue, in: metrics),
            componentCacheBytes: PrometheusText.sumUnlabelled(MetricName.gatewayComponentNearCacheBytes.rawValue, in: metrics),
            sqliteCacheBytes: PrometheusText.sum(MetricName.sqlitePageCacheBytes.rawValue, in: metrics),
            redisBytes: used)
    }

    private func report(_ counts: SoakTraffic.Counts, _ samples: [Sample]) throws {
        for failure in counts.failures { context.say("soak: \(failure)") }
        for sample in samples {
            context.say(
                "soak: t=\(Int(sample.seconds)) s rss=\(sample.rssKiB / 1024) MiB fds=\(sample.descriptors) near-cache snapshot=\(Int(sample.snapshotCacheBytes) >> 10) KiB component=\(Int(sample.componentCacheBytes) >> 10) KiB sqlite=\(Int(sample.sqliteCacheBytes) >> 10) KiB redis=\(sample.redisBytes >> 20) MiB")
        }
        Report.figure("soak.seconds", context.settings.soakSeconds)
        Report.figure("soak.requests", counts.requests)
        Report.figure("soak.non_2xx", counts.non2xx)
        guard let first = samples.first, let last = samples.last,
            let full = samples.firstIndex(where: { $0.snapshotCacheBytes >= 0.9 * Double(Self.nearCacheBytes) })
        else {
            throw BenchmarkError("the snapshot near-cache never reached 90 % of its \(Self.nearCacheBytes) bytes")
        }
        let since = Array(samples[full...])
        let atBound = since[0]
        Report.figure("soak.near_cache_full_after_s", Int(atBound.seconds))
        Report.figure("soak.rss_at_bound_mib", Format.fixed(Double(atBound.rssKiB) / 1024, 1))
        Report.figure("soak.rss_end_mib", Format.fixed(Double(last.rssKiB) / 1024, 1))
        Report.figure("soak.rss_max_mib", Format.fixed(Double(since.map(\.rssKiB).max() ?? 0) / 1024, 1))
        Report.figure("soak.rss_growth_mib_per_hour", Format.fixed(Self.slopePerHour(since.map { ($0.seconds, Double($0.rssKiB) / 1024) }), 1))
        Report.figure("soak.sqlite_page_cache_at_bound_mib", Format.fixed(atBound.sqliteCacheBytes / 1_048_576, 1))
        Report.figure("soak.sqlite_page_cache_end_mib", Format.fixed(last.sqliteCacheBytes / 1_048_576, 1))
        Report.figure("soak.descriptors_at_bound", atBound.descriptors)
        Report.figure("soak.descriptors_end", last.descriptors)
        Report.figure("soak.descriptors_max", since.map(\.descriptors).max() ?? 0)
        Report.figure("soak.redis_used_memory_start_mib", Format.fixed(Double(first.redisBytes) / 1_048_576, 1))
        Report.figure("soak.redis_used_memory_end_mib", Format.fixed(Double(last.redisBytes) / 1_048_576, 1))
        Report.ratio("soak.rss_end.vs_at_bound", Format.fixed(Double(last.rssKiB) / Double(atBound.rssKiB), 3))
    }

    /// Least-squares slope of (seconds, value) points, per hour.
    static func slopePerHour(_ points: [(Double, Double)]) -> Double {
        guard points.count > 1 else { return 0 }
        let n = Double(points.count)
        let meanX = points.map(\.0).reduce(0, +) / n
        let meanY = points.map(\.1).reduce(0, +) / n
        let covariance = points.map { ($0.0 - meanX) * ($0.1 - meanY) }.reduce(0, +)
        let variance = points.map { ($0.0 - meanX) * ($0.0 - meanX) }.reduce(0, +)
        return variance > 0 ? covariance / variance * 3_600 : 0
    }
}
