import ArgumentParser
import BraidRedis
import Foundation

/// `braid bench redis-get`: GET throughput of ``RedisClient`` with a fixed number of requests
/// in flight, the same shape as `redis-benchmark -t get -c <clients>` (each of its clients
/// keeps one request outstanding), so the two figures divide into a fair ratio.
///
/// With `--cluster` the URL is a seed of a Redis Cluster and, like `redis-benchmark
/// --cluster`, the requests in flight are spread evenly over the primaries, one key each.
/// A `rediss://` URL measures over TLS (`--ca-file` for a private CA).
struct RedisGetBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "redis-get", abstract: "GET ops/s with N concurrent requests on one client.")

    @Option(help: "redis:// or rediss:// URL of the server (with --cluster: of one cluster node) to measure.") var url: String
    @Option(help: "Requests in flight at any time.") var clients = 50
    @Option(help: "Total GETs (after a warm-up of a tenth as many).") var requests = 200_000
    @Option(name: .customLong("pool-size"), help: "Connections of the client's pool (per primary with --cluster).") var poolSize = 4
    @Flag(help: "The URL is a seed node of a Redis Cluster.") var cluster = false
    @Option(name: .customLong("ca-file"), help: "PEM CA file to verify a rediss:// server with.") var caFile: String?
    @Option(help: "Name of the printed figure: FIGURE <name>.ops_per_s.") var figure = "redis.get"

    func validate() throws {
        guard clients > 0, requests >= clients else { throw ValidationError("need clients > 0 and requests >= clients") }
    }

    func run() async throws {
        var configuration = try RedisConfiguration(url: url, poolSize: poolSize, commandTimeout: .seconds(5))
        if cluster { configuration.cluster = .init() }
        if let caFile { configuration.tls?.caFile = caFile }
        try configuration.validate()
        let client = RedisClient(configuration: configuration)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await client.run() }
            try await client.waitUntilConnected()
            let keys = try Self.keys(client)
            for key in keys { try await client.set(key, to: .string(String(repeating: "x", count: 3))) }
            _ = try await Self.getLoop(client, keys: keys, clients: clients, requests: requests / 10)
            let elapsed = try await Self.getLoop(client, keys: keys, clients: clients, requests: requests)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            print("FIGURE \(figure).ops_per_s \(Int((Double(requests) / seconds).rounded()))")
            group.cancelAll()
        }
    }

    /// redis-benchmark reads `key:__rand_int__` (with a hash tag of each primary's slots in
    /// cluster mode); ours reads keys of the same size, one per primary.
    static func keys(_ client: RedisClient) throws -> [String] {
        guard client.isCluster else { return ["key:000000000000"] }
        return try client.primaries().map { primary in
            for tag in 0..<100_000 {
                let key = "key:{\(tag)}:000000000000"
                if client.node(forKey: key) == primary { return key }
            }
            throw ValidationError("no key found for \(primary)")
        }
    }

    /// `clients` tasks, each issuing GETs back to back until `requests` have been sent;
    /// task i reads keys[i % keys.count], as redis-benchmark assigns its clients to nodes.
    static func getLoop(_ client: RedisClient, keys: [String], clients: Int, requests: Int) async throws -> Duration {
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<clients {
                let share = requests / clients + (worker < requests % clients ? 1 : 0)
                let key = keys[worker % keys.count]
                group.addTask {
                    for _ in 0..<share {
                        guard try await client.get(key) != nil else { throw ValidationError("GET \(key) returned nil") }
                    }
                }
            }
            try await group.waitForAll()
        }
        return ContinuousClock.now - started
    }
}
