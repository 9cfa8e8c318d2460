import BraidRedis
import BraidTestSupport
import Foundation
import NIOCore
import Testing

/// Cluster mode against the shared test cluster (3 primaries + 3 replicas, `make test`).
/// Tests that move slots or fail over find the current owners first: the cluster's shape is
/// whatever earlier tests left.
@Suite("Redis Cluster routing against a real cluster", .integration)
struct RedisClusterTests {
    /// A counter of a command on each node, from INFO commandstats: `calls` (executed) or
    /// `rejected_calls` (refused before running, e.g. with MOVED).
    static func calls(_ command: String, field: String = "calls", admin: RedisClusterAdmin, nodes: [String]) async throws -> [String: Int] {
        var calls: [String: Int] = [:]
        for node in nodes {
            let info = try await admin.run(node, ["INFO", "commandstats"]).string ?? ""
            let prefix = "cmdstat_\(command):"
            let line = info.split(whereSeparator: \.isNewline).first { $0.hasPrefix(prefix) }?.dropFirst(prefix.count)
            let value = line?.split(separator: ",").first { $0.hasPrefix("\(field)=") }
            calls[node] = value.flatMap { Int($0.dropFirst(field.count + 1)) } ?? 0
        }
        return calls
    }

    /// A key under a fresh hash tag whose slot `primary` serves (as `redis` sees the map).
    static func key(on primary: RedisEndpoint, _ redis: RedisClient, prefix: String = "k") -> String {
        while true {
            let key = "{\(TestEnvironment.uniqueName(prefix))}:value"
            if redis.node(forKey: key) == primary { return key }
        }
    }

    @Test func slotsAgreeWithTheServersClusterKeyslot() async throws {
        try await withRedisClusterClient { redis in
            for index in 0..<200 {
                let key = index % 2 == 0 ? TestEnvironment.uniqueName("slot") : "braid:{\(TestEnvironment.uniqueName("t"))}:\(index)"
                let answer = try await redis.send(["CLUSTER", "KEYSLOT", .string(key)])
                #expect(answer == .integer(Int64(RedisHashSlot.slot(of: key))), "\(key)")
            }
        }
    }

    @Test func eachKeyLandsOnThePrimaryServingItsSlot() async throws {
        try await withRedisClusterClient { redis in
            try await RedisClusterAdmin.with(nodes: try TestEnvironment.redisClusterNodes()) { admin in
                #expect(redis.primaries().count == 3)
                var used: Set<String> = []
                for _ in 0..<60 {
                    let key = "{\(TestEnvironment.uniqueName("route"))}:v"
                    try await redis.set(key, to: "1", expiration: .seconds(120))
                    let owner = try await admin.owner(ofSlot: RedisHashSlot.slot(of: key), asSeenBy: try #require(admin.clients.keys.first))
                    #expect(redis.node(forKey: key)?.description == owner)
                    // Asked directly, the owner has the key (another node would answer MOVED).
                    #expect(try await admin.run(owner, ["EXISTS", .string(key)]) == .integer(1))
                    used.insert(owner)
                }
                #expect(used.count == 3)
            }
        }
    }

    @Test func pipelinesAcrossAllPrimaries() async throws {
        try await withRedisClusterClient(poolSize: 2) { redis in
            try await RedisClusterAdmin.with(nodes: try TestEnvironment.redisClusterNodes()) { admin in
                let primaries = redis.primaries().map(\.description)
                let before = try await Self.calls("get", admin: admin, nodes: primaries)
                let rejectedBefore = try await Self.calls("get", field: "rejected_calls", admin: admin, nodes: primaries)
                let prefix = TestEnvironment.uniqueName("pipe")
                let count = 3000
                // Every key under its own tag: spread over all slots and so all primaries, all
                // in flight at once on two connections per primary.
                let wrong = try await withThrowingTaskGroup(of: Int.self) { group in
                    for index in 0..<count {
                        group.addTask {
                            let key = "{\(prefix):\(index)}"
                            try await redis.set(key, to: .string("value-\(index)"), expiration: .seconds(120))
                            return try await redis.getString(key) == "value-\(index)" ? 0 : 1
                        }
                    }
                    return try await group.reduce(0, +)
                }
                #expect(wrong == 0)
                let after = try await Self.calls("get", admin: admin, nodes: primaries)
                let served = primaries.map { (after[$0] ?? 0) - (before[$0] ?? 0) }
                #expect(served.reduce(0, +) == count)
                #expect(served.allSatisfy { $0 > count / 6 }, "GETs per primary: \(served)")
                // Each GET went to the right primary first time: none was refused with MOVED.
                let rejectedAfter = try await Self.calls("get", field: "rejected_calls", admin: admin, nodes: primaries)
                #expect(primaries.map { (rejectedAfter[$0] ?? 0) - (rejectedBefore[$0] ?? 0) } == [0, 0, 0])
            }
        }
    }

    @Test func rawCommandsRouteByTheKeyTableOrByExplicitKeys() async throws {
        try await withRedisClusterClient { redis in
            let hash = "{\(TestEnvironment.uniqueName("raw"))}:h"
            #expect(try await redis.send(["HSET", .string(hash), "version", "7"]) == .integer(1))
            #expect(try await redis.send(["HGET", .string(hash), "version"]).string == "7")
            #expect(try await redis.send(["OBJECT", "ENCODING", .string(hash)], keys: [hash]).string == "listpack")
            let unknown = await #expect(throws: RedisRoutingError.self) { try await redis.send(["OBJECT", "ENCODING", .string(hash)]) }
            #expect(unknown?.kind == .unknownKeys)
            #expect(try await redis.send(["ECHO", "anywhere"]).string == "anywhere")
            #expect(try await redis.send(["OBJECT", "HELP"], keys: []) != .array(nil))
            try await redis.ping()
            _ = try await redis.del([hash])
        }
    }

    @Test func commandsWhoseKeysSpanSlotsAreRefusedAndNeverSent() async throws {
        try await withRedisClusterClient { redis in
            try await RedisClusterAdmin.with(nodes: try TestEnvironment.redisClusterNodes()) { admin in
                let nodes = try TestEnvironment.redisClusterNodes()
                let before = try await Self.calls("mget", admin: admin, nodes: nodes)
                let (a, b) = ("{\(TestEnvironment.uniqueName("x"))}:a", "{\(TestEnvironment.uniqueName("y"))}:b")
                try #require(RedisHashSlot.slot(of: a) != RedisHashSlot.slot(of: b))
                let typed = await #expect(throws: RedisRoutingError.self) { _ = try await redis.mget([a, b]) }
                #expect(typed?.kind == .crossSlot && typed?.command == "MGET")
                let raw = await #expect(throws: RedisRoutingError.self) { try await redis.send(["MGET", .string(a), .string(b)]) }
                #expect(raw?.kind == .crossSlot)
                let script = RedisScript("return #KEYS")
                let lua = await #expect(throws: RedisRoutingError.self) { try await redis.evalsha(script, keys: [a, b], arguments: []) }
                #expect(lua?.command == "EVALSHA")
                // Keys under one tag are fine.
                let tag = TestEnvironment.uniqueName("same")
                #expect(try await redis.mget(["{\(tag)}:a", "{\(tag)}:b"]) == [nil, nil])
                let after = try await Self.calls("mget", admin: admin, nodes: nodes)
                #expect(nodes.map { (after[$0] ?? 0) - (before[$0] ?? 0) }.reduce(0, +) == 1, "only the one valid MGET reached Redis")
            }
        }
    }

    @Test func aScriptIsLoadedOnTheNodeThatAnswersNoscript() async throws {
        try await withRedisClusterClient { redis in
            try await RedisClusterAdmin.with(nodes: try TestEnvironment.redisClusterNodes()) { admin in
                // A script no node has seen: every primary answers NOSCRIPT the first time.
                let script = RedisScript("return redis.call('INCRBY', KEYS[1], ARGV[1]) -- \(UUID().uuidString)")
                for primary in redis.primaries() {
                    let key = Self.key(on: primary, redis, prefix: "lua")
                    #expect(try await redis.evalsha(script, keys: [key], arguments: ["2"]) == .integer(2))
                    let exists = try await admin.run(primary.description, ["SCRIPT", "EXISTS", .string(script.sha1)])
                    #expect(exists == .array([.integer(1)]))
                    // Flushed on that node (a restart would do the same): loaded there again.
                    try await admin.run(primary.description, ["SCRIPT", "FLUSH"])
                    #expect(try await redis.evalsha(script, keys: [key], arguments: ["3"]) == .integer(5))
                    _ = try await redis.del([key])
                }
            }
        }
    }

    @Test func followsMovedAfterASlotMigration() async throws {
        try await withRedisClusterClient { redis in
            try await RedisClusterAdmin.with(nodes: try TestEnvironment.redisClusterNodes()) { admin in
                let primaries = redis.primaries()
                let source = primaries[0], target = primaries[1]
                let tag = Self.key(on: source, redis, prefix: "moved")
                let keys = (0..<5).map { "\(tag):\($0)" }
                for key in keys { try await redis.set(key, to: .string(key), expiration: .seconds(300)) }
                let slot = RedisHashSlot.slot(of: tag)

                try await admin.moveSlot(slot, from: source.description, to: target.description)
                try await admin.waitUntilAgreed(slot: slot, owner: target.description, nodes: primaries.map(\.description))
                // The client has not noticed yet: its map still names the source.
                #expect(redis.node(forKey: tag) == source)
                // The source answers MOVED; the client follows it and updates its map.
                #expect(try await redis.getString(keys[0]) == keys[0])
                #expect(redis.node(forKey: tag) == target)
                for key in keys { #expect(try await redis.getString(key) == key) }
                try await redis.set(tag + ":new", to: "after the move")
                #expect(try await admin.run(target.description, ["GET", .string(tag + ":new")]).string == "after the move")
            }
        }
    }

    @Test func followsAskDuringAMigrationWithoutChangingItsMap() async throws {
        try await withRedisClusterClient { redis in
            try await RedisClusterAdmin.with(nodes: try TestEnvironment.redisClusterNodes()) { admin in
                let primaries = redis.primaries()
                let source = primaries[2], target = primaries[0]
                let tag = Self.key(on: source, redis, prefix: "ask")
                let (moved, staying, fresh) = ("\(tag):moved", "\(tag):staying", "\(tag):fresh")
                try await redis.set(moved, to: "moved early", expiration: .seconds(300))
                try await redis.set(staying, to: "still on the source", expiration: .seconds(300))
                let slot = RedisHashSlot.slot(of: tag)
                let script = RedisScript("return redis.call('GET', KEYS[1]) -- \(UUID().uuidString)")

                try await admin.beginMigration(slot: slot, from: source.description, to: target.description)
                try await admin.migrate(keys: [moved], from: source.description, to: target.description)
                // The migrated key: the source answers ASK, the client asks the target once.
                #expect(try await redis.getString(moved) == "moved early")
                #expect(try await redis.evalsha(script, keys: [moved], arguments: []).string == "moved early")
                // A key not moved yet is still served by the source.
                #expect(try await redis.getString(staying) == "still on the source")
                // A new key goes to the importing node.
                try await redis.set(fresh, to: "written during the move", expiration: .seconds(300))
                // ASK changes nothing in the map.
                #expect(redis.node(forKey: tag) == source)
                // Keys on both sides in one command: Redis says TRYAGAIN until the move ends;
                // the client retries until its command timeout, then reports the slot unavailable.
                let split = await #expect(throws: RedisConnectionError.self) { _ = try await redis.mget([moved, staying]) }
                #expect(split?.kind == .unavailable)

                try await admin.migrate(keys: [staying], from: source.description, to: target.description)
                try await admin.finishMigration(slot: slot, from: source.description, to: target.description)
                try await admin.waitUntilAgreed(slot: slot, owner: target.description, nodes: primaries.map(\.description))
                #expect(try await admin.run(target.description, ["GET", .string(fresh)]).string == "written during the move")
                #expect(try await redis.mget([moved, staying, fresh]).map { $0.map { String(buffer: $0) } } == [
                    "moved early", "still on the source", "written during the move",
                ])
                #expect(redis.node(forKey: tag) == target)
            }
        }
    }

    /// A snapshot write's shape (flip a pointer that exists, create a version key) while its
    /// slot is half moved: Redis answers TRYAGAIN on the source (one key there, one not) and
    /// then on the importing target, for as long as the move lasts. The client keeps retrying
    /// within its command timeout, so a move of under a second costs the write nothing.
    @Test func aWriteDuringASlotMoveWaitsForTheMoveToEnd() async throws {
        try await withRedisClusterClient(commandTimeout: .seconds(3)) { redis in
            try await RedisClusterAdmin.with(nodes: try TestEnvironment.redisClusterNodes()) { admin in
                let primaries = redis.primaries()
                let source = primaries[1], target = primaries[2]
                let tag = Self.key(on: source, redis, prefix: "tryagain")
                let (pointer, version) = ("\(tag):cur", "\(tag):v:2")
                try await redis.set(pointer, to: "1", expiration: .seconds(300))
                let slot = RedisHashSlot.slot(of: tag)
                let script = RedisScript(
                    "redis.call('SET', KEYS[2], ARGV[1], 'EX', 300) redis.call('SET', KEYS[1], ARGV[1], 'EX', 300) return 1 -- \(UUID().uuidString)")

                try await admin.beginMigration(slot: slot, from: source.description, to: target.description)
                let started = ContinuousClock.now
                let write = Task { try await redis.evalsha(script, keys: [pointer, version], arguments: ["2"]) }
                try await Task.sleep(for: .milliseconds(300))
                try await admin.migrate(keys: admin.keys(inSlot: slot, on: source.description), from: source.description, to: target.description)
                try await Task.sleep(for: .milliseconds(300))
                try await admin.finishMigration(slot: slot, from: source.description, to: target.description)
                #expect(try await write.value == .integer(1))
                #expect(ContinuousClock.now - started >= .milliseconds(600), "the write waited for the move")
                #expect(try await redis.mget([pointer, version]).map { $0.map { String(buffer: $0) } } == ["2", "2"])
                _ = try await redis.del([pointer, version])
            }
        }
    }

    @Test func aFailoverMovesTheSlotsToTheFormerReplica() async throws {
        try await withRedisClusterClient { redis in
            try await RedisClusterAdmin.with(nodes: try TestEnvironment.redisClusterNodes()) { admin in
                let primary = redis.primaries()[1]
                let key = Self.key(on: primary, redis, prefix: "failover")
                try await redis.set(key, to: "kept across the failover", expiration: .seconds(300))
                let replica = try await admin.syncedReplica(of: primary.description)

                try await admin.run(replica, ["CLUSTER", "FAILOVER"])
                let slot = RedisHashSlot.slot(of: key)
                try await admin.waitUntilAgreed(slot: slot, owner: replica, nodes: try TestEnvironment.redisClusterNodes())
                // The old primary, now a replica, answers MOVED; the client follows and re-reads its map.
                #expect(try await redis.getString(key) == "kept across the failover")
                try await eventually("a replica promoted in the slot map", within: .seconds(20)) { redis.primaries().map(\.description).contains(replica) && !redis.primaries().contains(primary) }
                #expect(redis.node(forKey: key)?.description == replica)
                try await redis.set(key, to: "written to the new primary")
                #expect(try await admin.run(replica, ["GET", .string(key)]).string == "written to the new primary")
            }
        }
    }

    @Test func scanKeysWalksEveryPrimary() async throws {
        try await withRedisClusterClient { redis in
            let prefix = TestEnvironment.uniqueName("scan") + "[x]"
            var written: [String] = []
            for index in 0..<90 {
                // The tag starts after the prefix, so keys spread over all slots.
                let key = "\(prefix):{\(index)}"
                try await redis.set(key, to: "1", expiration: .seconds(120))
                written.append(key)
            }
            #expect(Set(written.compactMap { redis.node(forKey: $0) }).count == 3)
            let found = try await redis.scanKeys(matching: RedisClient.globPattern(prefix: prefix), count: 50)
            #expect(found == written.sorted())
        }
    }

    @Test func aClusterClientPointedAtASingleServerSaysSo() async throws {
        var configuration = try RedisConfiguration(url: try TestEnvironment.redisURL(), poolSize: 1)
        configuration.cluster = .init()
        let error = await #expect(throws: RedisConnectionError.self) {
            try await withRedisClient(configuration: configuration, connectTimeout: .seconds(2)) { _ in }
        }
        #expect(error?.message.contains("not a cluster node") == true, "\(String(describing: error))")
    }
}
