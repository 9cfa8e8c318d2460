import BraidRedis

/// Runs a client for the duration of `body` (as a service would run it), connected first.
public func withRedisClient<T: Sendable>(
    _ url: String, poolSize: Int = 2, commandTimeout: Duration = .seconds(2), waitForConnection: Bool = true,
    _ body: @Sendable (RedisClient) async throws -> T
) async throws -> T {
    try await withRedisClient(
        configuration: try RedisConfiguration(url: url, poolSize: poolSize, commandTimeout: commandTimeout),
        waitForConnection: waitForConnection, body)
}

/// Runs a client of any configuration (TLS, cluster) for the duration of `body`. The default
/// wait for a connection is generous: beside the fast tier a client's connecting tasks can wait
/// tens of seconds for a thread, and how long connecting takes is not what these
/// tests check (those that do pass their own `connectTimeout`).
public func withRedisClient<T: Sendable>(
    configuration: RedisConfiguration, waitForConnection: Bool = true, connectTimeout: Duration = .seconds(60),
    _ body: @Sendable (RedisClient) async throws -> T
) async throws -> T {
    let client = RedisClient(configuration: configuration)
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await client.run() }
        defer { group.cancelAll() }
        if waitForConnection { try await client.waitUntilConnected(timeout: connectTimeout) }
        return try await body(client)
    }
}

/// A client of the shared test cluster (``TestEnvironment/redisClusterURLs()``).
public func withRedisClusterClient<T: Sendable>(
    _ urls: [String]? = nil, poolSize: Int = 2, commandTimeout: Duration = .seconds(2),
    _ body: @Sendable (RedisClient) async throws -> T
) async throws -> T {
    let configuration = try RedisConfiguration(
        clusterURLs: try urls ?? TestEnvironment.redisClusterURLs(), poolSize: poolSize, commandTimeout: commandTimeout)
    return try await withRedisClient(configuration: configuration, body)
}
