import BraidRedis

/// Runs a client for the duration of `body` (as a service would run it), connected first.
public func withRedisClient<T: Sendable>(
    _ url: String, poolSize: Int = 2, commandTimeout: Duration = .seconds(2), waitForConnection: Bool = true,
    _ body: @Sendable (RedisClient) async throws -> T
) async throws -> T {
    let client = RedisClient(configuration: try RedisConfiguration(url: url, poolSize: poolSize, commandTimeout: commandTimeout))
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await client.run() }
        defer { group.cancelAll() }
        if waitForConnection { try await client.waitUntilConnected() }
        return try await body(client)
    }
}
