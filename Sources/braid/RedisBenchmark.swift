import ArgumentParser
import BraidRedis
import Foundation

/// `braid bench redis-get`: GET throughput of ``RedisClient`` with a fixed number of requests
/// in flight, the same shape as `redis-benchmark -t get -c <clients>` (each of its clients
/// keeps one request outstanding), so the two figures divide into a fair ratio.
struct RedisGetBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "redis-get", abstract: "GET ops/s with N concurrent requests on one client.")

    @Option(help: "redis:// URL of the server to measure.") var url: String
    @Option(help: "Requests in flight at any time.") var clients = 50
    @Option(help: "Total GETs (after a warm-up of a tenth as many).") var requests = 200_000
    @Option(name: .customLong("pool-size"), help: "Connections of the client's pool.") var poolSize = 4

    func validate() throws {
        guard clients > 0, requests >= clients else { throw ValidationError("need clients > 0 and requests >= clients") }
    }

    func run() async throws {
        let client = RedisClient(configuration: try RedisConfiguration(url: url, poolSize: poolSize, commandTimeout: .seconds(5)))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await client.run() }
            try await client.waitUntilConnected()
            // redis-benchmark reads the key `key:__rand_int__`; ours reads a key of the same size.
            let key = "key:000000000000"
            try await client.set(key, to: .string(String(repeating: "x", count: 3)))
            _ = try await Self.getLoop(client, key: key, clients: clients, requests: requests / 10)
            let elapsed = try await Self.getLoop(client, key: key, clients: clients, requests: requests)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            print("FIGURE redis.get.ops_per_s \(Int((Double(requests) / seconds).rounded()))")
            group.cancelAll()
        }
    }

    /// `clients` tasks, each issuing GETs back to back until `requests` have been sent.
    static func getLoop(_ client: RedisClient, key: String, clients: Int, requests: Int) async throws -> Duration {
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<clients {
                let share = requests / clients + (worker < requests % clients ? 1 : 0)
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
