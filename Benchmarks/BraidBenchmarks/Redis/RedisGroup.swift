import BraidConfig
import BraidHarness
import BraidRedis
import BraidWiring
import Foundation

/// Redis GET throughput: our client vs redis-benchmark, 50 requests in flight, no pipelining
/// flag on either, against the same server in the same run. Three figures: the plaintext
/// server of the run; a TLS-only server (both sides over TLS, certificates made here); a Redis
/// Cluster of 3 primaries + 3 replicas (redis-benchmark --cluster, ours in cluster mode), both
/// started here and stopped at the end of their figure.
struct RedisGroup {
    let context: BenchmarkContext

    func run() async throws {
        let redis = context.redis
        try await ratio("redis.get", baseline: ["-h", "127.0.0.1", "-p", "\(redis.port)"]) { $0.url = redis.url }

        let material = try await TLSMaterial.make(in: context.run.file("tls"))
        let tls = try await RedisServer.start(in: context.run, tls: .init(material: material))
        context.say("redis-server (TLS) listening on 127.0.0.1:\(tls.port) (pid \(tls.process.pid))")
        try await ratio("redis.tls_get", baseline: ["--tls", "--cacert", material.file("ca.crt"), "-h", "127.0.0.1", "-p", "\(tls.port)"]) {
            $0.url = tls.url
            $0.tls.caFile = material.file("ca.crt")
        }
        await tls.stop()

        let cluster = try await RedisCluster.start(
            in: context.run, name: "bench", nodeTimeout: .milliseconds(context.settings.clusterNodeTimeoutMs))
        context.say("Redis Cluster 'bench' on 127.0.0.1 ports \(cluster.ports.map(String.init).joined(separator: " ")) (3 primaries + 3 replicas)")
        let seed = cluster.ports[0]
        try await ratio("redis.cluster_get", baseline: ["--cluster", "-h", "127.0.0.1", "-p", "\(seed)"]) {
            $0.url = "redis://127.0.0.1:\(seed)"
            $0.mode = .cluster
        }
        await cluster.stop()
    }

    /// Prints redis-benchmark's figure, ours, and ours ÷ redis-benchmark's.
    private func ratio(
        _ name: String, baseline: [String], server: (inout BraidConfiguration.RedisSection) -> Void
    ) async throws {
        let requests = context.settings.redisRequests
        let theirs = try await RedisBenchmarkTool.getsPerSecond(baseline, requests: requests, name: name)
        Report.figure("\(name).redis_benchmark.ops_per_s", RedisBenchmarkTool.integerPart(theirs))
        let ours = try await RedisGetBenchmark.opsPerSecond(try clientConfiguration(server), clients: 50, requests: requests)
        Report.figure("\(name).ops_per_s", ours)
        guard let baseline = Double(theirs), baseline > 0 else { throw BenchmarkError("redis-benchmark's figure \(theirs) is not a rate") }
        Report.ratio("\(name).vs_redis_benchmark", Format.fixed(Double(ours) / baseline, 3))
    }

    /// The client the product would build for this server (BraidWiring), with a 5 s command
    /// timeout: on a loaded machine a stalled GET must not end the run, and the timeout is
    /// not on the measured path.
    private func clientConfiguration(_ server: (inout BraidConfiguration.RedisSection) -> Void) throws -> RedisConfiguration {
        var configuration = try ConfigurationLoader.load(file: nil)
        server(&configuration.redis)
        configuration.redis.commandTimeout = .seconds(5)
        try configuration.validate()
        return try configuration.redis.clientConfiguration()
    }
}
