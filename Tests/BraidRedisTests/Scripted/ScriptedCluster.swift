import BraidCore
@testable import BraidRedis
import NIOCore
import Synchronization

/// A Redis Cluster of scripted nodes: each answers `CLUSTER SHARDS` from one shared topology
/// that a test changes mid-run (a slot moved, a replica promoted), and everything else with
/// its own script.
final class ScriptedCluster: Sendable {
    struct Shard: Sendable {
        var slots: [ClosedRange<Int>]
        var primary: RedisEndpoint
        var replicas: [RedisEndpoint] = []
        /// A primary that failed, listed as CLUSTER SHARDS lists it during a failover.
        var failed: RedisEndpoint?
    }

    static func node(_ port: Int) -> RedisEndpoint { RedisEndpoint(host: "127.0.0.1", port: port) }

    let redis = ScriptedRedis()
    private let topology: Mutex<[Shard]>

    init(_ shards: [Shard]) {
        topology = Mutex(shards)
    }

    /// The topology every node reports from now on.
    func reshape(_ shards: [Shard]) {
        topology.withLock { $0 = shards }
    }

    /// Makes `node` a cluster node: `CLUSTER SHARDS` from the topology, the rest from `script`.
    func serve(_ node: RedisEndpoint, _ script: @escaping ScriptedRedis.Script = { _, _ in nil }) {
        redis.serve(node) { [self] command, previous in
            if command.map({ $0.uppercased() }) == ["CLUSTER", "SHARDS"] {
                return .reply(Self.shardsReply(topology.withLock { $0 }))
            }
            return script(command, previous)
        }
    }

    /// A client configuration for this cluster, seeded with `seeds`: quick reconnects and map
    /// refreshes, and a command timeout long enough that a busy machine does not cut TRYAGAIN
    /// retries short (a command's own timeout runs on the channel's clock, which only a test moves).
    static func configuration(seeds: [RedisEndpoint], commandTimeout: Duration = .seconds(120)) -> RedisConfiguration {
        RedisConfiguration(
            host: seeds[0].host, port: seeds[0].port, poolSize: 1, commandTimeout: commandTimeout, connectTimeout: .milliseconds(500),
            reconnectBackoff: .init(initial: .milliseconds(5), maximum: .milliseconds(50)),
            cluster: .init(seeds: seeds, minimumRefreshInterval: .milliseconds(10)))
    }

    /// The reply of redis-server 7 to CLUSTER SHARDS (RESP2) for `shards`.
    static func shardsReply(_ shards: [Shard]) -> RESPValue {
        func node(_ endpoint: RedisEndpoint, role: String, health: String = "online") -> RESPValue {
            .array([
                .bulk("id"), .bulk("id-\(endpoint.port)"), .bulk("port"), .integer(Int64(endpoint.port)),
                .bulk("ip"), .bulk(endpoint.host), .bulk("endpoint"), .bulk(endpoint.host),
                .bulk("role"), .bulk(role), .bulk("replication-offset"), .integer(1000), .bulk("health"), .bulk(health),
            ])
        }
        return .array(
            shards.map { shard in
                var nodes = [node(shard.primary, role: "master")] + shard.replicas.map { node($0, role: "replica") }
                if let failed = shard.failed { nodes.append(node(failed, role: "master", health: "failed")) }
                return .array([
                    .bulk("slots"), .array(shard.slots.flatMap { [RESPValue.integer(Int64($0.lowerBound)), .integer(Int64($0.upperBound))] }),
                    .bulk("nodes"), .array(nodes),
                ])
            })
    }

    /// A key (under a hash tag) whose slot lies in `slots`.
    static func key(in slots: ClosedRange<Int>, _ name: String = "k") -> String {
        var index = 0
        while true {
            let key = "{\(name)\(index)}:value"
            if slots.contains(RedisHashSlot.slot(of: key)) { return key }
            index += 1
        }
    }
}
