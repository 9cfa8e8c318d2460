@testable import BraidRedis
import NIOCore
import Testing

@Suite("Cluster slot map")
struct ClusterSlotMapTests {
    static func node(_ port: Int, role: String, health: String = "online", endpoint: String = "127.0.0.1", tlsPort: Int? = nil) -> RESPValue {
        var fields: [RESPValue] = [
            .bulkString(.init(string: "id")), .bulkString(.init(string: "id-\(port)")),
            .bulkString(.init(string: "port")), .integer(Int64(port)),
            .bulkString(.init(string: "ip")), .bulkString(.init(string: "127.0.0.1")),
            .bulkString(.init(string: "endpoint")), .bulkString(.init(string: endpoint)),
            .bulkString(.init(string: "role")), .bulkString(.init(string: role)),
            .bulkString(.init(string: "replication-offset")), .integer(72156),
            .bulkString(.init(string: "health")), .bulkString(.init(string: health)),
        ]
        if let tlsPort { fields += [.bulkString(.init(string: "tls-port")), .integer(Int64(tlsPort))] }
        return .array(fields)
    }

    static func shard(_ ranges: [Int], _ nodes: [RESPValue]) -> RESPValue {
        .array([
            .bulkString(.init(string: "slots")), .array(ranges.map { .integer(Int64($0)) }),
            .bulkString(.init(string: "nodes")), .array(nodes),
        ])
    }

    /// The shape redis-server 7.0.15 answers CLUSTER SHARDS with (RESP2), for three shards.
    static let shards: RESPValue = .array([
        shard([10923, 16383], [node(7002, role: "master"), node(7005, role: "replica")]),
        shard([0, 5460], [node(7000, role: "master"), node(7003, role: "replica")]),
        shard([5461, 10922], [node(7001, role: "master"), node(7004, role: "replica", health: "loading")]),
    ])

    @Test func parsesClusterShards() throws {
        let map = try ClusterSlotMap.parse(shards: Self.shards, tls: false, askedHost: "10.0.0.9")
        #expect(map.isComplete)
        #expect(map.primary(forSlot: 0) == RedisEndpoint(host: "127.0.0.1", port: 7000))
        #expect(map.primary(forSlot: 5460) == RedisEndpoint(host: "127.0.0.1", port: 7000))
        #expect(map.primary(forSlot: 5461) == RedisEndpoint(host: "127.0.0.1", port: 7001))
        #expect(map.primary(forSlot: 16383) == RedisEndpoint(host: "127.0.0.1", port: 7002))
        #expect(map.primaries.map(\.port) == [7000, 7001, 7002])
        // A replica still loading is not a node to ask.
        #expect(map.nodes.map(\.port) == [7000, 7001, 7002, 7003, 7005])
    }

    @Test func tlsClientsUseTheTLSPortAndUnknownEndpointsMeanTheAskedHost() throws {
        let reply: RESPValue = .array([
            Self.shard([0, 16383], [Self.node(7000, role: "master", endpoint: "?", tlsPort: 8000)])
        ])
        let plain = try ClusterSlotMap.parse(shards: reply, tls: false, askedHost: "cache.internal")
        #expect(plain.primary(forSlot: 42) == RedisEndpoint(host: "127.0.0.1", port: 7000))
        let tls = try ClusterSlotMap.parse(shards: reply, tls: true, askedHost: "cache.internal")
        #expect(tls.primary(forSlot: 42)?.port == 8000)
        let noIP: RESPValue = .array([
            .array([
                .bulkString(.init(string: "slots")), .array([.integer(0), .integer(16383)]),
                .bulkString(.init(string: "nodes")),
                .array([
                    .array([
                        .bulkString(.init(string: "port")), .integer(7000), .bulkString(.init(string: "endpoint")),
                        .bulkString(.init(string: "?")), .bulkString(.init(string: "role")), .bulkString(.init(string: "master")),
                    ])
                ]),
            ])
        ])
        #expect(try ClusterSlotMap.parse(shards: noIP, tls: false, askedHost: "cache.internal").primary(forSlot: 1)?.host == "cache.internal")
    }

    @Test func duringAFailoverTheOnlinePrimaryWins() throws {
        let reply: RESPValue = .array([
            Self.shard([0, 16383], [Self.node(7000, role: "master", health: "failed"), Self.node(7003, role: "master")])
        ])
        let map = try ClusterSlotMap.parse(shards: reply, tls: false, askedHost: "x")
        #expect(map.primary(forSlot: 100)?.port == 7003)
        #expect(map.primaries.map(\.port) == [7003])
    }

    @Test func shardsWithoutSlotsAndGapsAreHandled() throws {
        let reply: RESPValue = .array([
            Self.shard([0, 99, 200, 299], [Self.node(7000, role: "master")]),
            Self.shard([], [Self.node(7001, role: "master")]),
        ])
        let map = try ClusterSlotMap.parse(shards: reply, tls: false, askedHost: "x")
        #expect(map.coveredSlots == 200)
        #expect(!map.isComplete)
        #expect(map.primary(forSlot: 150) == nil)
        #expect(map.primary(forSlot: 250)?.port == 7000)
        #expect(map.primaries.map(\.port) == [7000])
    }

    @Test func parsesClusterSlots() throws {
        func entry(_ start: Int, _ end: Int, _ ports: [Int], host: String = "127.0.0.1") -> RESPValue {
            .array(
                [.integer(Int64(start)), .integer(Int64(end))]
                    + ports.map { .array([.bulkString(.init(string: host)), .integer(Int64($0)), .bulkString(.init(string: "id"))]) })
        }
        let reply: RESPValue = .array([entry(0, 5460, [7000, 7003]), entry(5461, 10922, [7001]), entry(10923, 16383, [7002], host: "")])
        let map = try ClusterSlotMap.parse(slots: reply, askedHost: "seed.internal")
        #expect(map.isComplete)
        #expect(map.primary(forSlot: 5000)?.port == 7000)
        #expect(map.primary(forSlot: 16000) == RedisEndpoint(host: "seed.internal", port: 7002))
        #expect(map.nodes.contains(RedisEndpoint(host: "127.0.0.1", port: 7003)))
    }

    @Test func malformedRepliesAreErrorsNotCrashes() {
        #expect(throws: ClusterSlotMap.ParseError.self) { try ClusterSlotMap.parse(shards: .integer(1), tls: false, askedHost: "x") }
        #expect(throws: ClusterSlotMap.ParseError.self) { try ClusterSlotMap.parse(shards: .array([.integer(1)]), tls: false, askedHost: "x") }
        #expect(throws: ClusterSlotMap.ParseError.self) {
            try ClusterSlotMap.parse(shards: .array([Self.shard([5, 1], [Self.node(7000, role: "master")])]), tls: false, askedHost: "x")
        }
        #expect(throws: ClusterSlotMap.ParseError.self) { try ClusterSlotMap.parse(slots: .array([.array([.integer(0)])]), askedHost: "x") }
    }

    @Test func assigningAMovedSlotChangesOnlyThatSlot() throws {
        var map = try ClusterSlotMap.parse(shards: Self.shards, tls: false, askedHost: "x")
        let target = RedisEndpoint(host: "127.0.0.1", port: 7002)
        map.assign(slot: 42, to: target)
        #expect(map.primary(forSlot: 42) == target)
        #expect(map.primary(forSlot: 41)?.port == 7000)
        #expect(map.isComplete)
        // A node the map did not know becomes a primary of its own.
        let newcomer = RedisEndpoint(host: "127.0.0.1", port: 7999)
        map.assign(slot: 43, to: newcomer)
        #expect(map.primaries.contains(newcomer))
        // A primary left without slots drops out of the map.
        var single = ClusterSlotMap([(0...0, .init(primary: RedisEndpoint(host: "a", port: 1), replicas: []))])
        single.assign(slot: 0, to: RedisEndpoint(host: "b", port: 2))
        #expect(single.primaries == [RedisEndpoint(host: "b", port: 2)])
    }
}

@Suite("Cluster redirections")
struct ClusterRedirectionTests {
    let node = RedisEndpoint(host: "10.0.0.1", port: 7000)

    @Test func parsesMovedAndAsk() {
        #expect(ClusterRedirection(errorReply: "MOVED 3999 127.0.0.1:6381", from: node) == .moved(slot: 3999, to: RedisEndpoint(host: "127.0.0.1", port: 6381)))
        #expect(ClusterRedirection(errorReply: "ASK 3999 127.0.0.1:6381", from: node) == .ask(slot: 3999, to: RedisEndpoint(host: "127.0.0.1", port: 6381)))
        #expect(ClusterRedirection(errorReply: "MOVED 1 cache-2.internal:6379", from: node) == .moved(slot: 1, to: RedisEndpoint(host: "cache-2.internal", port: 6379)))
        #expect(ClusterRedirection(errorReply: "MOVED 1 [::1]:7001", from: node) == .moved(slot: 1, to: RedisEndpoint(host: "::1", port: 7001)))
        // A node that does not know its own address leaves the host out: the one that answered.
        #expect(ClusterRedirection(errorReply: "MOVED 7 :7002", from: node) == .moved(slot: 7, to: RedisEndpoint(host: "10.0.0.1", port: 7002)))
        #expect(ClusterRedirection(errorReply: "TRYAGAIN Multiple keys request during rehashing of slot", from: node) == .tryAgain)
        #expect(ClusterRedirection(errorReply: "CLUSTERDOWN The cluster is down", from: node) == .clusterDown)
    }

    @Test(arguments: ["ERR unknown command", "NOSCRIPT No matching script", "MOVED", "MOVED abc 1.2.3.4:5", "MOVED 99999 1.2.3.4:5", "ASK 1 nohost", "MOVEDX 1 a:1"])
    func otherErrorsAreNoRedirection(message: String) {
        #expect(ClusterRedirection(errorReply: message, from: node) == nil)
    }
}
