@testable import BraidRedis
import BraidTestSupport
import NIOCore
import Synchronization
import Testing

/// The real cluster client (slot map, router, pools, connections, RESP) against scripted
/// nodes: which command goes to which node, and what the client does with MOVED, ASK,
/// TRYAGAIN, CLUSTERDOWN, NOSCRIPT and a primary that dies. No server; runs in parallel.
@Suite("Cluster routing over scripted nodes", .timeLimit(.minutes(5)))
struct ClusterRoutingTests {
    typealias Shard = ScriptedCluster.Shard
    static let a = ScriptedCluster.node(7000)
    static let b = ScriptedCluster.node(7001)
    static let replicaOfA = ScriptedCluster.node(7002)
    static let lower = 0...8191
    static let upper = 8192...16383

    /// Two primaries, A serving the lower half of the slots and B the upper half.
    static func twoPrimaries() -> ScriptedCluster {
        ScriptedCluster([Shard(slots: [lower], primary: a, replicas: [replicaOfA]), Shard(slots: [upper], primary: b)])
    }

    /// Answers GET (and MGET) with "<key>@<port>", so a reply tells which node served it.
    static func values(of node: RedisEndpoint) -> ScriptedRedis.Script {
        { command, _ in
            switch command.first {
            case "GET": .reply(.bulk("\(command[1])@\(node.port)"))
            case "MGET": .reply(.array(command.dropFirst().map { .bulk("\($0)@\(node.port)") }))
            default: nil
            }
        }
    }
    @Test func readsTheMapFromASeedAndSendsEachKeyToItsSlotsPrimary() async throws {
        let cluster = Self.twoPrimaries()
        cluster.serve(Self.a, Self.values(of: Self.a))
        cluster.serve(Self.b, Self.values(of: Self.b))
        let (low, high) = (ScriptedCluster.key(in: Self.lower), ScriptedCluster.key(in: Self.upper))
        try await cluster.redis.withClient(ScriptedCluster.configuration(seeds: [Self.a])) { redis in
            #expect(redis.primaries() == [Self.a, Self.b])
            #expect(try await redis.getString(low) == "\(low)@7000")
            #expect(try await redis.getString(high) == "\(high)@7001")
            // Keys under one hash tag share a slot, so a multi-key command goes to one node.
            let tag = high.prefix { $0 != ":" }
            _ = try await redis.send(["MGET", .string("\(tag):x"), .string("\(tag):y")])
        }
        let redis = cluster.redis
        // The seed was asked for the map.
        #expect(redis.log.first { $0.command == ["CLUSTER", "SHARDS"] }?.node == Self.a)
        #expect(redis.commands(on: Self.a).filter { $0.first == "GET" } == [["GET", low]])
        #expect(redis.commands(on: Self.b).filter { $0.first == "GET" } == [["GET", high]])
        #expect(redis.count(["MGET"], on: Self.b) == 1)
        #expect(redis.count(["MGET"], on: Self.a) == 0)
        // Only primaries get pools: the replica is never connected to.
        #expect(redis.channels(to: Self.replicaOfA).isEmpty)
    }

    /// Redis 6 has no CLUSTER SHARDS: the client switches to CLUSTER SLOTS.
    @Test func fallsBackToClusterSlotsOnRedisSix() async throws {
        let redis = ScriptedRedis()
        let slots: RESPValue = .array([
            .array([.integer(0), .integer(16383), .array([.bulk("127.0.0.1"), .integer(7000), .bulk("id-a")])])
        ])
        redis.serve(Self.a) { command, _ in
            switch command {
            case ["CLUSTER", "SHARDS"]: .reply(.error("ERR unknown subcommand 'SHARDS'. Try CLUSTER HELP."))
            case ["CLUSTER", "SLOTS"]: .reply(slots)
            default: Self.values(of: Self.a)(command, nil)
            }
        }
        try await redis.withClient(ScriptedCluster.configuration(seeds: [Self.a])) { client throws in
            #expect(try await client.getString("k") == "k@7000")
        }
        #expect(redis.count(["CLUSTER", "SHARDS"]) == 1, "asked once, then never again")
        #expect(redis.count(["CLUSTER", "SLOTS"]) >= 1)
    }

    @Test func aSeedThatIsNoClusterNodeIsNamedInTheError() async throws {
        let redis = ScriptedRedis()
        redis.serve(Self.a) { command, _ in
            command.first == "CLUSTER" ? .reply(.error("ERR This instance has cluster support disabled")) : nil
        }
        let error = await #expect(throws: RedisConnectionError.self) {
            try await redis.withClient(ScriptedCluster.configuration(seeds: [Self.a]), connected: false) { client in
                // The first answer has been read once a second query comes.
                try await eventually("two slot-map queries") { redis.count(["CLUSTER", "SHARDS"]) >= 2 }
                try await client.waitUntilConnected(timeout: .milliseconds(100))
            }
        }
        #expect(error?.message.contains("not a cluster node") == true, "\(String(describing: error))")
    }

    /// MOVED: the command is sent again to the new owner, the slot is routed there at once,
    /// and a map refresh is asked for.
    @Test func movedResendsToTheNewOwnerAndRefreshesTheMap() async throws {
        let cluster = Self.twoPrimaries()
        let key = ScriptedCluster.key(in: 1...8191)
        let slot = RedisHashSlot.slot(of: key)
        // The slot has moved to B; A's map knows, the client's does not yet.
        cluster.serve(Self.a) { command, _ in command.first == "GET" ? .reply(.error("MOVED \(slot) 127.0.0.1:7001")) : nil }
        cluster.serve(Self.b, Self.values(of: Self.b))
        try await cluster.redis.withClient(ScriptedCluster.configuration(seeds: [Self.a])) { redis in
            let refreshesBefore = cluster.redis.count(["CLUSTER", "SHARDS"])
            #expect(redis.node(forKey: key) == Self.a)
            cluster.reshape([Shard(slots: [0...(slot - 1), (slot + 1)...8191], primary: Self.a), Shard(slots: [slot...slot, Self.upper], primary: Self.b)])

            #expect(try await redis.getString(key) == "\(key)@7001")
            #expect(redis.node(forKey: key) == Self.b, "routed to the new owner at once")
            try await eventually("a map refresh after MOVED") { cluster.redis.count(["CLUSTER", "SHARDS"]) > refreshesBefore }
            // The next command for the slot goes straight to B.
            #expect(try await redis.getString(key) == "\(key)@7001")
        }
        #expect(cluster.redis.count(["GET"], on: Self.a) == 1)
        #expect(cluster.redis.commands(on: Self.b).filter { $0.first == "GET" } == [["GET", key], ["GET", key]])
    }

    /// ASK: one command goes to the importing node, preceded by ASKING on the same
    /// connection; the map does not change, so the next command asks the old owner again.
    @Test func askSendsAskingThenTheCommandToTheTargetOnceAndKeepsTheMap() async throws {
        let cluster = Self.twoPrimaries()
        let key = ScriptedCluster.key(in: Self.lower)
        let slot = RedisHashSlot.slot(of: key)
        cluster.serve(Self.a) { command, _ in command.first == "GET" ? .reply(.error("ASK \(slot) 127.0.0.1:7001")) : nil }
        cluster.serve(Self.b) { command, previous in
            switch command.first {
            case "ASKING": .reply(.ok)
            // Without ASKING just before, B does not serve a slot it is only importing.
            case "GET": previous == ["ASKING"] ? .reply(.bulk("imported")) : .reply(.error("MOVED \(slot) 127.0.0.1:7000"))
            default: nil
            }
        }
        try await cluster.redis.withClient(ScriptedCluster.configuration(seeds: [Self.a])) { redis throws in
            #expect(try await redis.getString(key) == "imported")
            #expect(redis.node(forKey: key) == Self.a, "ASK leaves the map alone")
            #expect(try await redis.getString(key) == "imported")
        }
        let onB = cluster.redis.commands(on: Self.b).filter { $0.first != "PING" && $0.first != "CLUSTER" }
        #expect(onB == [["ASKING"], ["GET", key], ["ASKING"], ["GET", key]])
        #expect(cluster.redis.count(["GET"], on: Self.a) == 2, "each command asked the owner in the map first")
    }

    /// TRYAGAIN (a multi-key command during a slot migration): retried with growing pauses
    /// until the node serves it.
    @Test func tryAgainIsRetriedWithBackoffUntilItSucceeds() async throws {
        let cluster = ScriptedCluster([Shard(slots: [0...16383], primary: Self.a)])
        let arrivals = Mutex<[ContinuousClock.Instant]>([])
        cluster.serve(Self.a) { command, _ in
            guard command.first == "MGET" else { return nil }
            let attempt = arrivals.withLock { arrivals in
                arrivals.append(.now)
                return arrivals.count
            }
            return attempt <= 5
                ? .reply(.error("TRYAGAIN Multiple keys request during rehashing of slot"))
                : .reply(.array([.bulk("1"), .bulk("2")]))
        }
        try await cluster.redis.withClient(ScriptedCluster.configuration(seeds: [Self.a])) { redis in
            let values = try await redis.mget(["{t}:a", "{t}:b"])
            #expect(values.map { $0.map { String(buffer: $0) } } == ["1", "2"])
        }
        // Six attempts (more than the redirect limit: TRYAGAIN is no hop), with pauses that
        // double from 5 ms.
        let times = arrivals.withLock { $0 }
        try #require(times.count == 6)
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
        for (gap, least) in zip(gaps, [5, 10, 20, 40, 80]) {
            #expect(gap >= .milliseconds(least), "pauses: \(gaps)")
        }
    }

    /// A migration that does not end within the command timeout: the client gives up with an
    /// unavailable error that names TRYAGAIN, close to the timeout, not after a fixed count.
    @Test func tryAgainGivesUpAtTheCommandTimeoutWithAClearError() async throws {
        let cluster = ScriptedCluster([Shard(slots: [0...16383], primary: Self.a)])
        cluster.serve(Self.a) { command, _ in
            command.first == "MGET" ? .reply(.error("TRYAGAIN Multiple keys request during rehashing of slot")) : nil
        }
        try await cluster.redis.withClient(ScriptedCluster.configuration(seeds: [Self.a], commandTimeout: .milliseconds(600))) { redis in
            let started = ContinuousClock.now
            let error = await #expect(throws: RedisConnectionError.self) { _ = try await redis.mget(["{t}:a", "{t}:b"]) }
            let took = ContinuousClock.now - started
            #expect(error?.kind == .unavailable)
            #expect(error?.message.contains("TRYAGAIN") == true, "\(String(describing: error))")
            #expect(took >= .milliseconds(500), "gave up after \(took), not before the timeout")
        }
    }

    /// The primary dies: commands for its slots fail fast (never hang), the client re-reads
    /// the map from the nodes it knows, and the promoted replica serves the slots.
    @Test func aDeadPrimaryIsReplacedByThePromotedReplicaAfterARefresh() async throws {
        let cluster = Self.twoPrimaries()
        cluster.serve(Self.a, Self.values(of: Self.a))
        cluster.serve(Self.b, Self.values(of: Self.b))
        cluster.serve(Self.replicaOfA, Self.values(of: Self.replicaOfA))
        let key = ScriptedCluster.key(in: Self.lower)
        let configuration = ScriptedCluster.configuration(seeds: [Self.a, Self.b])
        try await cluster.redis.withClient(configuration) { redis in
            #expect(try await redis.getString(key) == "\(key)@7000")

            cluster.reshape([
                Shard(slots: [Self.lower], primary: Self.replicaOfA, failed: Self.a), Shard(slots: [Self.upper], primary: Self.b),
            ])
            cluster.redis.kill(Self.a)
            var failures = 0
            let deadline = ContinuousClock.now + .seconds(120)
            var served: String?
            while served == nil, ContinuousClock.now < deadline {
                let started = ContinuousClock.now
                do {
                    served = try await redis.getString(key)
                } catch let error as RedisConnectionError {
                    failures += 1
                    // Came back at all: this command timeout runs on the channels' clock, which
                    // nothing moves here, so a command waiting on the dead node would never return.
                    #expect(ContinuousClock.now - started < .seconds(60), "failed fast: \(error)")
                }
                if served == nil { try await Task.sleep(for: .milliseconds(5)) }
            }
            #expect(served == "\(key)@7002")
            #expect(redis.primaries() == [Self.b, Self.replicaOfA])
            #expect(redis.node(forKey: key) == Self.replicaOfA)
            print("failover over scripted nodes: \(failures) command(s) failed fast before the replica served")
        }
        // The new map came from a node that still answers, not from the dead one.
        #expect(cluster.redis.count(["CLUSTER", "SHARDS"], on: Self.replicaOfA) + cluster.redis.count(["CLUSTER", "SHARDS"], on: Self.b) >= 1)
        #expect(cluster.redis.commands(on: Self.replicaOfA).contains(["GET", key]))
    }

    @Test func clusterDownFailsAtOnceAsUnavailableAndAsksForANewMap() async throws {
        let cluster = ScriptedCluster([Shard(slots: [0...16383], primary: Self.a)])
        cluster.serve(Self.a) { command, _ in command.first == "GET" ? .reply(.error("CLUSTERDOWN The cluster is down")) : nil }
        try await cluster.redis.withClient(ScriptedCluster.configuration(seeds: [Self.a])) { redis in
            let before = cluster.redis.count(["CLUSTER", "SHARDS"])
            let error = await #expect(throws: RedisConnectionError.self) { _ = try await redis.get("k") }
            #expect(error?.kind == .unavailable)
            #expect(error?.message.contains("CLUSTERDOWN") == true)
            try await eventually("a map refresh after CLUSTERDOWN") { cluster.redis.count(["CLUSTER", "SHARDS"]) > before }
        }
        #expect(cluster.redis.count(["GET"]) == 1, "not retried")
    }

    /// Two nodes that keep sending the command to each other: the client stops after the
    /// configured number of hops instead of looping.
    @Test func endlessRedirectionsStopAfterMaxRedirects() async throws {
        let cluster = Self.twoPrimaries()
        let key = ScriptedCluster.key(in: Self.lower)
        let slot = RedisHashSlot.slot(of: key)
        cluster.serve(Self.a) { command, _ in command.first == "GET" ? .reply(.error("MOVED \(slot) 127.0.0.1:7001")) : nil }
        cluster.serve(Self.b) { command, _ in command.first == "GET" ? .reply(.error("MOVED \(slot) 127.0.0.1:7000")) : nil }
        try await cluster.redis.withClient(ScriptedCluster.configuration(seeds: [Self.a])) { redis in
            let error = await #expect(throws: RedisConnectionError.self) { _ = try await redis.get(key) }
            #expect(error?.kind == .unavailable)
            #expect(error?.message.contains("redirected 5 times") == true, "\(String(describing: error))")
        }
        #expect(cluster.redis.count(["GET"]) == 6, "the first attempt and five redirections")
    }

    /// NOSCRIPT on a node that has not run the script: SCRIPT LOAD on that node, then the
    /// command again; a second NOSCRIPT is the server's answer, not a loop.
    @Test func noscriptLoadsTheScriptOnThatNodeAndSendsTheCommandAgain() async throws {
        let cluster = ScriptedCluster([Shard(slots: [0...16383], primary: Self.a)])
        let script = RedisScript("return 42")
        let loaded = ScriptedCounter()
        cluster.serve(Self.a) { command, _ in
            switch command.first {
            case "SCRIPT":
                _ = loaded.next()
                return .reply(.bulk(script.sha1))
            case "EVALSHA":
                return loaded.value > 0 && command[3] != "{x}:never" ? .reply(.integer(42)) : .reply(.error("NOSCRIPT No matching script"))
            default:
                return nil
            }
        }
        try await cluster.redis.withClient(ScriptedCluster.configuration(seeds: [Self.a])) { redis throws in
            #expect(try await redis.evalsha(script, keys: ["{x}:k"], arguments: ["1"]) == .integer(42))
            let stuck = await #expect(throws: RedisServerError.self) {
                _ = try await redis.evalsha(script, keys: ["{x}:never"], arguments: [])
            }
            #expect(stuck?.code == "NOSCRIPT")
        }
        let sent = cluster.redis.commands(on: Self.a).filter { $0.first == "EVALSHA" || $0.first == "SCRIPT" }
        #expect(sent == [
            ["EVALSHA", script.sha1, "1", "{x}:k", "1"], ["SCRIPT", "LOAD", "return 42"], ["EVALSHA", script.sha1, "1", "{x}:k", "1"],
            ["EVALSHA", script.sha1, "1", "{x}:never"], ["SCRIPT", "LOAD", "return 42"], ["EVALSHA", script.sha1, "1", "{x}:never"],
        ])
    }
}

/// A thread-safe counter for scripts.
final class ScriptedCounter: Sendable {
    private let count = Mutex(0)

    /// The count before this call, then one more.
    func next() -> Int {
        count.withLock { count in
            defer { count += 1 }
            return count
        }
    }
    var value: Int { count.withLock { $0 } }
}
