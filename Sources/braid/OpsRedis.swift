import BraidConfig
import BraidPrecompute
import BraidRedis
import BraidWiring

/// Runs a Redis client of the configuration for the duration of `body`, connected first, as
/// the services run theirs (there in a ServiceGroup; a short tool needs no signal handling).
func withOpsRedis<T: Sendable>(
    _ configuration: BraidConfiguration, _ body: @Sendable (RedisClient) async throws -> T
) async throws -> T {
    var clientConfiguration = try configuration.redis.clientConfiguration()
    clientConfiguration.poolSize = 1
    let client = RedisClient(configuration: clientConfiguration)
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await client.run() }
        defer { group.cancelAll() }
        do {
            try await client.waitUntilConnected(timeout: .seconds(5))
        } catch {
            throw OpsError("cannot connect to Redis at \(clientConfiguration.host):\(clientConfiguration.port): \(error)")
        }
        return try await body(client)
    }
}

extension RedisClient {
    /// Every key matching `prefix*` (the prefix's glob characters escaped), by SCAN.
    func scanKeys(prefix: String, count: Int = 500) async throws -> [String] {
        var pattern = ""
        for character in prefix {
            if "*?[]\\".contains(character) { pattern.append("\\") }
            pattern.append(character)
        }
        pattern.append("*")
        var cursor = "0"
        var keys: Set<String> = []
        repeat {
            let reply = try await send(["SCAN", .string(cursor), "MATCH", .string(pattern), "COUNT", .integer(Int64(count))])
            guard case .array(let parts?) = reply, parts.count == 2, let next = parts[0].string, case .array(let found?) = parts[1] else {
                throw OpsError("unexpected reply to SCAN: \(reply)")
            }
            for key in found { if let key = key.string { keys.insert(key) } }
            cursor = next
        } while cursor != "0"
        return keys.sorted()
    }
}

/// A failure of an ops tool, printed as is.
struct OpsError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
