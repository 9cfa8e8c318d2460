import BraidConfig
import BraidPrecompute
import BraidRedis
import BraidWiring

/// Runs a Redis client of the configuration for the duration of `body`, connected first, as
/// the services run theirs (there in a ServiceGroup; a short tool needs no signal handling).
func withOpsRedis<T: Sendable>(
    _ configuration: BraidConfiguration, _ body: @Sendable (RedisClient) async throws -> T
) async throws -> T {
    let client = try configuration.redis.makeClient(poolSize: 1)
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await client.run() }
        defer { group.cancelAll() }
        do {
            try await client.waitUntilConnected(timeout: .seconds(5))
        } catch {
            throw OpsError("cannot connect to Redis at \(client.configuration.host):\(client.configuration.port): \(error)")
        }
        return try await body(client)
    }
}

extension RedisClient {
    /// Every key matching `prefix*` (the prefix's glob characters escaped), by SCAN on every
    /// primary of a cluster (the one server when standalone).
    func scanKeys(prefix: String, count: Int = 500) async throws -> [String] {
        try await scanKeys(matching: Self.globPattern(prefix: prefix), count: count)
    }
}

/// A failure of an ops tool, printed as is.
struct OpsError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
