import BraidHarness
import BraidRedis
import BraidDevSupport
import Foundation

/// A scenario's processes each on a host of its own (``VirtualNetwork``): Redis, the broker,
/// gateways and workers reach each other over the virtual switch, and this process reaches all
/// of them. The network is removed when the scenario ends, however it ends.
struct NetworkWorld: Sendable {
    let world: ScenarioWorld
    let network: VirtualNetwork
    /// Key prefix of the scenario's processes.
    var keyPrefix: String { world.name }

    static func with<T: Sendable>(
        _ stack: FaultStack, scenario: String, hosts: [String], _ body: (NetworkWorld) async throws -> T
    ) async throws -> T {
        try await ScenarioWorld.with(stack, scenario: scenario) { world in
            let network = try await VirtualNetwork.create(hosts: hosts)
            do {
                let result = try await body(NetworkWorld(world: world, network: network))
                await world.run.stopAll()
                await network.remove()
                return result
            } catch {
                await world.run.stopAll()
                await network.remove()
                throw error
            }
        }
    }

    subscript(host: String) -> VirtualNetwork.Host { network[host] }

    /// A redis-server on `host`, port 6379, that reports every SET of a key (for
    /// ``WriteLog``).
    func redis(on host: String) async throws -> RedisServer {
        try await RedisServer.start(
            in: world.run, port: 6379, arguments: ["--notify-keyspace-events", "E$"], on: network[host].placement)
    }

    /// The broker on `host`, port 9092, with Braid's topics.
    func broker(on host: String, partitions: Int = 6) async throws -> KafkaBroker {
        try await KafkaBroker.start(in: world.run, port: 9092, partitions: partitions, on: network[host].placement)
    }

    /// What every `braid` process of the scenario is configured with: the servers, the corpus,
    /// the key prefix, and the secrets a process needs off loopback.
    func environment(redis: String, brokers: String, extra: [String: String] = [:]) -> [String: String] {
        [
            "BRAID_REDIS_URL": redis, "BRAID_REDIS_KEY_PREFIX": keyPrefix, "BRAID_KAFKA_BROKERS": brokers,
            "BRAID_SEARCH_SQLITE_PATH": world.stack.corpus.path, "BRAID_WORKER_RETRY_BACKOFF_MS": "100",
            "BRAID_LOGGING_LEVEL": "info",
        ].merging(Self.secrets) { $1 }.merging(WorkerFixture.gatewayLimits) { $1 }.merging(extra) { $1 }
    }

    /// Secrets made for this run: gateways and workers bind non-loopback addresses here, so
    /// they refuse to start without them (``BraidService`` adds the rest, such as the identity).
    static let secrets: [String: String] = [
        "BRAID_GATEWAY_CURSOR_KEY": ProductionSecrets.make(), "BRAID_GATEWAY_IMPRESSION_KEY": ProductionSecrets.make(),
        "BRAID_CONSOLE_TOKEN": ProductionSecrets.make(), "BRAID_ADMIN_TOKEN": ProductionSecrets.make(),
    ]

    /// The `/metrics` text of the worker on `host` (its admin token as the bearer token), or nil.
    func workerMetrics(on host: String, timeout: Duration = .seconds(10)) async -> String? {
        let token = Self.secrets["BRAID_ADMIN_TOKEN"] ?? ""
        guard let response = try? await HTTPProbe.request(
            "http://\(network[host].address):9464/metrics", headers: [("Authorization", "Bearer \(token)")], timeout: timeout),
            response.status == 200
        else { return nil }
        return response.text
    }

    /// A gateway on `host`, port 8080.
    func gateway(on host: String, name: String = "gateway", environment: [String: String]) async throws -> BraidService {
        try await BraidService.gateway(
            in: world.run, name: name, port: 8080, environment: environment, binary: world.stack.binary, on: network[host].placement)
    }

    /// A worker on `host` (metrics on its address, port 9464), waited for until it owns
    /// partitions of the requests topic.
    func worker(on host: String, name: String, environment: [String: String]) async throws -> BraidService {
        try await BraidService.worker(
            in: world.run, name: name,
            environment: environment.merging([
                "BRAID_WORKER_METRICS_HOST": network[host].address, "BRAID_WORKER_METRICS_PORT": "9464",
            ]) { $1 },
            assignedFrom: "braid.requests", binary: world.stack.binary, on: network[host].placement)
    }

    /// Publishes ranking requests for `queries` from this process.
    func publish(_ queries: [String], brokers: String, as name: String) async throws {
        let file = world.file("\(name).jsonl")
        try DemoRequests.write(WorkerFixture.rankingRequests(queries), to: file)
        try await ChildProcess.check(
            world.stack.binary, ["publish", "--file", file.path], environment: ["BRAID_KAFKA_BROKERS": brokers], timeout: .seconds(120))
    }

    /// Snapshot pointers under the scenario's prefix on the Redis at `url`.
    func snapshots(redis url: String) async throws -> Int {
        try await withRedisClient(url, waitForConnection: true) { redis in
            try await redis.scanKeys(matching: RedisClient.globPattern(prefix: "\(keyPrefix):{rank:") + ":cur", count: 1000).count
        }
    }

    /// Waits until `count` snapshots exist; the time it took, or nil after `timeout`.
    func waitForSnapshots(_ count: Int, redis url: String, timeout: Duration) async -> Duration? {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < timeout {
            if let found = try? await snapshots(redis: url), found >= count { return .now - start }
            try? await Task.sleep(for: .milliseconds(250))
        }
        return nil
    }
}

/// Secrets as an operator makes them: 32 random bytes, base64url.
enum ProductionSecrets {
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
