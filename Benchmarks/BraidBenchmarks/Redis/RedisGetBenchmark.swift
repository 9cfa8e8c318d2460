import BraidRedis
import Foundation

/// GET throughput of ``RedisClient`` with a fixed number of requests in flight, the same shape
/// as `redis-benchmark -t get -c <clients>` (each of its clients keeps one request
/// outstanding), so the two figures divide into a fair ratio.
///
/// On a Redis Cluster, like `redis-benchmark --cluster`, the requests in flight are spread
/// evenly over the primaries, one key each.
enum RedisGetBenchmark {
    /// GETs per second over `requests` GETs, after a warm-up of a tenth as many.
    static func opsPerSecond(_ configuration: RedisConfiguration, clients: Int, requests: Int) async throws -> Int {
        let client = RedisClient(configuration: configuration)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await client.run() }
            try await client.waitUntilConnected()
            let keys = try Self.keys(client)
            for key in keys { try await client.set(key, to: .string(String(repeating: "x", count: 3))) }
            _ = try await Self.getLoop(client, keys: keys, clients: clients, requests: requests / 10)
            let elapsed = try await Self.getLoop(client, keys: keys, clients: clients, requests: requests)
            group.cancelAll()
            return Int((Double(requests) / Format.seconds(elapsed)).rounded())
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
            throw BenchmarkError("no key found for \(primary)")
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
                        guard try await client.get(key) != nil else { throw BenchmarkError("GET \(key) returned nil") }
                    }
                }
            }
            try await group.waitForAll()
        }
        return ContinuousClock.now - started
    }
}
