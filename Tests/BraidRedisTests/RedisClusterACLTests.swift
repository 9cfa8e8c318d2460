import BraidRedis
import BraidTestSupport
import Foundation
import Testing

/// Cluster mode as an ACL user, not `default`: the user of Deploy/config/production.yaml's
/// comment (`+@all -@dangerous +cluster|shards +cluster|slots`, keys under one prefix) is
/// created on every node of the shared test cluster (ACLs are per node), and the client
/// reads the slot map, routes, pipelines and loads scripts as that user.
@Suite("Redis Cluster as an ACL user", .integration)
struct RedisClusterACLTests {
    @Test func aClusterClientWorksAsAnACLUserOnEveryNode() async throws {
        let user = TestEnvironment.uniqueName("acl-user"), password = UUID().uuidString, prefix = TestEnvironment.uniqueName("acl")
        let nodes = try TestEnvironment.redisClusterNodes()
        try await RedisClusterAdmin.with(nodes: nodes) { admin in
            for node in nodes {
                try await admin.run(
                    node,
                    ["ACL", "SETUSER", .string(user), "on", .string(">\(password)"), .string("~\(prefix):*"), "+@all", "-@dangerous",
                     "+cluster|shards", "+cluster|slots"])
            }
            var configuration = try RedisConfiguration(clusterURLs: nodes.map { "redis://\($0)" }, poolSize: 2, commandTimeout: .seconds(2))
            configuration.username = user
            configuration.password = password
            let outcome: Result<Void, any Error>
            do {
                try await Self.exercise(configuration, user: user, prefix: prefix)
                outcome = .success(())
            } catch {
                outcome = .failure(error)
            }
            for node in nodes { _ = try? await admin.run(node, ["ACL", "DELUSER", .string(user)]) }
            try outcome.get()
        }
    }

    static func exercise(_ configuration: RedisConfiguration, user: String, prefix: String) async throws {
        try await withRedisClient(configuration: configuration) { redis in
            #expect(redis.primaries().count == 3, "the slot map was read as the user")
            for primary in redis.primaries() {
                let whoami = try await redis.send(["ACL", "WHOAMI"], node: primary)
                #expect(whoami.string == user, "\(primary) sees the user")
            }
            // Keys on every primary, written and read back in one pipelined burst.
            let keys = (0..<60).map { "\(prefix):{\($0)}:v" }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for key in keys { group.addTask { try await redis.set(key, to: .string(key), expiration: .seconds(60)) } }
                try await group.waitForAll()
            }
            for key in keys { #expect(try await redis.getString(key) == key) }
            #expect(Set(keys.compactMap { redis.node(forKey: $0) }).count == 3)
            // Scripts load on each node that answers NOSCRIPT, as the user.
            let script = RedisScript("return redis.call('INCRBY', KEYS[1], ARGV[1]) -- \(UUID().uuidString)")
            for key in keys.prefix(6) {
                _ = try await redis.del([key])
                #expect(try await redis.evalsha(script, keys: [key], arguments: ["2"]) == .integer(2))
            }
            // The user's limits hold: a key outside its pattern is refused by the server.
            await #expect(throws: RedisServerError.self) { try await redis.set("elsewhere:{x}:v", to: "1") }
            for key in keys { _ = try await redis.del([key]) }
        }
    }
}
