import BraidRedis
import Foundation

/// Operator moves on a test cluster, through one plain (standalone-mode) client per node:
/// who is primary, moving a slot between primaries step by step, failing over. The
/// cluster-mode client under test never does these itself.
public final class RedisClusterAdmin: Sendable {
    /// `host:port` → a client talking to that node only.
    public let clients: [String: RedisClient]

    private init(clients: [String: RedisClient]) {
        self.clients = clients
    }

    /// Runs `body` with clients for every node of `nodes` (`host:port`), connected first.
    public static func with<T: Sendable>(nodes: [String], _ body: @Sendable (RedisClusterAdmin) async throws -> T) async throws -> T {
        var clients: [String: RedisClient] = [:]
        for node in nodes {
            clients[node] = RedisClient(configuration: try RedisConfiguration(url: "redis://\(node)", poolSize: 1, commandTimeout: .seconds(5)))
        }
        let admin = RedisClusterAdmin(clients: clients)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            for client in clients.values { group.addTask { try await client.run() } }
            defer { group.cancelAll() }
            return try await body(admin)
        }
    }

    public func client(_ node: String) throws -> RedisClient {
        guard let client = clients[node] else { throw AdminError("no client for node \(node)") }
        return client
    }

    /// Sends a command to one node; the node must be up.
    @discardableResult
    public func run(_ node: String, _ arguments: [RESPArgument]) async throws -> RESPValue {
        let client = try client(node)
        try await client.waitUntilConnected(timeout: .seconds(2))
        return try await client.send(arguments, keys: [])
    }

    public func nodeID(_ node: String) async throws -> String {
        guard let id = try await run(node, ["CLUSTER", "MYID"]).string else { throw AdminError("no id from \(node)") }
        return id
    }

    /// The primary serving `slot`, as `node` sees it (CLUSTER SHARDS).
    public func owner(ofSlot slot: Int, asSeenBy node: String) async throws -> String {
        let reply = try await run(node, ["CLUSTER", "SHARDS"])
        guard case .array(let shards?) = reply else { throw AdminError("CLUSTER SHARDS: \(reply)") }
        for shard in shards {
            let fields = Self.fields(shard)
            guard case .array(let ranges?)? = fields["slots"], case .array(let nodes?)? = fields["nodes"] else { continue }
            let bounds = ranges.compactMap { value -> Int? in if case .integer(let n) = value { Int(n) } else { nil } }
            let covered = stride(from: 0, to: bounds.count - 1, by: 2).contains { bounds[$0] <= slot && slot <= bounds[$0 + 1] }
            guard covered else { continue }
            for nodeValue in nodes {
                let node = Self.fields(nodeValue)
                if node["role"]?.string == "master", node["health"]?.string == "online", let ip = node["ip"]?.string,
                    case .integer(let port)? = node["port"]
                {
                    return "\(ip):\(port)"
                }
            }
        }
        throw AdminError("no online primary serves slot \(slot)")
    }

    /// Nodes whose ROLE is master, among those that answer.
    public func primaries() async throws -> [String] {
        var primaries: [String] = []
        for node in clients.keys.sorted() {
            guard let reply = try? await run(node, ["ROLE"]), case .array(let parts?) = reply else { continue }
            if parts.first?.string == "master" { primaries.append(node) }
        }
        return primaries
    }

    /// The replicas of `primary` (from its ROLE reply).
    public func replicas(of primary: String) async throws -> [String] {
        guard case .array(let parts?) = try await run(primary, ["ROLE"]), parts.count >= 3, case .array(let replicas?) = parts[2] else {
            return []
        }
        return replicas.compactMap { replica in
            guard case .array(let fields?) = replica, fields.count >= 2, let ip = fields[0].string, let port = fields[1].string else { return nil }
            return "\(ip):\(port)"
        }
    }

    /// Waits until `primary` has a replica whose link is up (after a cluster was created, or
    /// a failover) and returns it.
    public func syncedReplica(of primary: String, timeout: Duration = .seconds(20)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            for replica in try await replicas(of: primary) {
                let info = (try? await run(replica, ["INFO", "replication"]).string) ?? ""
                if info.contains("master_link_status:up") { return replica }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw AdminError("\(primary) has no replica in sync after \(timeout)")
    }

    /// Step 1 of a slot move: `target` imports it, `source` migrates it. Until the move
    /// finishes, `source` answers ASK for keys it no longer has.
    public func beginMigration(slot: Int, from source: String, to target: String) async throws {
        try await run(target, ["CLUSTER", "SETSLOT", .integer(Int64(slot)), "IMPORTING", .string(nodeID(source))])
        try await run(source, ["CLUSTER", "SETSLOT", .integer(Int64(slot)), "MIGRATING", .string(nodeID(target))])
    }

    /// Step 2: moves keys of the slot from `source` to `target` (MIGRATE).
    public func migrate(keys: [String], from source: String, to target: String) async throws {
        guard !keys.isEmpty, let endpoint = RedisEndpoint(target) else { return }
        try await run(
            source,
            ["MIGRATE", .string(endpoint.host), .integer(Int64(endpoint.port)), "", .integer(0), .integer(5000), "KEYS"] + keys.map { .string($0) })
    }

    /// Every key `source` holds in `slot`.
    public func keys(inSlot slot: Int, on source: String) async throws -> [String] {
        guard case .array(let keys?) = try await run(source, ["CLUSTER", "GETKEYSINSLOT", .integer(Int64(slot)), .integer(10_000)]) else { return [] }
        return keys.compactMap(\.string)
    }

    /// Step 3: the slot belongs to `target`, told to the target, the source and every other primary.
    public func finishMigration(slot: Int, from source: String, to target: String) async throws {
        let targetID = try await nodeID(target)
        var told = [target, source]
        for primary in try await primaries() where !told.contains(primary) { told.append(primary) }
        for node in told { try await run(node, ["CLUSTER", "SETSLOT", .integer(Int64(slot)), "NODE", .string(targetID)]) }
    }

    /// The whole move of one slot with all its keys.
    public func moveSlot(_ slot: Int, from source: String, to target: String) async throws {
        try await beginMigration(slot: slot, from: source, to: target)
        try await migrate(keys: keys(inSlot: slot, on: source), from: source, to: target)
        try await finishMigration(slot: slot, from: source, to: target)
    }

    /// Waits until every node in `nodes` answers CLUSTER INFO with state ok and the same
    /// view of `slot`'s owner (`owner`), e.g. after a move or a failover.
    public func waitUntilAgreed(slot: Int, owner: String, nodes: [String], timeout: Duration = .seconds(20)) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            var agreed = true
            for node in nodes where (try? await self.owner(ofSlot: slot, asSeenBy: node)) != owner {
                agreed = false
                break
            }
            if agreed { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw AdminError("the nodes did not agree within \(timeout) that \(owner) serves slot \(slot)")
    }

    /// A RESP2 map as a dictionary.
    static func fields(_ value: RESPValue) -> [String: RESPValue] {
        guard case .array(let items?) = value else { return [:] }
        var fields: [String: RESPValue] = [:]
        for index in stride(from: 0, to: items.count - 1, by: 2) {
            if let name = items[index].string { fields[name] = items[index + 1] }
        }
        return fields
    }

    public struct AdminError: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
