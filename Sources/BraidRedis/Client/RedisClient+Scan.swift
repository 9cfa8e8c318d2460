/// Walking the key space, on every primary of a cluster.
extension RedisClient {
    /// Every key matching the glob `pattern`, by SCAN on each of ``primaries()`` (the one
    /// server when standalone), sorted and without duplicates. SCAN may return a key twice
    /// and misses none that existed for the whole walk; in a cluster, a slot that moves
    /// during the walk can be seen on both nodes or, rarely, on neither.
    public func scanKeys(matching pattern: String, count: Int = 500) async throws -> [String] {
        var keys: Set<String> = []
        try await scanKeys(matching: pattern, count: count) { keys.formUnion($0) }
        return keys.sorted()
    }

    /// Walks the same keys as ``scanKeys(matching:count:)`` one SCAN reply at a time, so a
    /// large key space is never held at once; `body` may see a key more than once.
    public func scanKeys(matching pattern: String, count: Int = 500, _ body: ([String]) async throws -> Void) async throws {
        let nodes = primaries()
        guard !nodes.isEmpty else {
            throw RedisConnectionError(.unavailable, "the cluster slot map is not known yet; wait with waitUntilConnected()")
        }
        for node in nodes {
            var cursor = "0"
            repeat {
                let reply = try await send(
                    ["SCAN", .string(cursor), "MATCH", .string(pattern), "COUNT", .integer(Int64(count))], node: node)
                guard case .array(let parts?) = reply, parts.count == 2, let next = parts[0].string, case .array(let found?) = parts[1] else {
                    throw RedisUnexpectedReplyError(command: "SCAN", reply: reply)
                }
                let keys = found.compactMap(\.string)
                if !keys.isEmpty { try await body(keys) }
                cursor = next
            } while cursor != "0"
        }
    }

    /// A glob pattern that matches `prefix` literally (`*?[]\` escaped) followed by anything.
    public static func globPattern(prefix: String) -> String {
        var pattern = ""
        for character in prefix {
            if "*?[]\\".contains(character) { pattern.append("\\") }
            pattern.append(character)
        }
        return pattern + "*"
    }
}
