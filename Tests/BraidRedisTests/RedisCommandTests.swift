import BraidRedis
import BraidTestSupport
import Foundation
import NIOCore
import Testing

@Suite("Redis commands against a real server", .integration)
struct RedisCommandTests {
    @Test func getSetWithExpiryAndConditions() async throws {
        try await withRedisClient(try TestEnvironment.redisURL()) { redis in
            let key = TestEnvironment.uniqueName("k")
            #expect(try await redis.get(key) == nil)
            #expect(try await redis.set(key, to: "one", condition: .ifExists) == false)
            #expect(try await redis.get(key) == nil)
            #expect(try await redis.set(key, to: "one", expiration: .seconds(100), condition: .ifNotExists))
            guard case .seconds(let ttl) = try await redis.ttl(key) else { Issue.record("no TTL"); return }
            #expect((1...100).contains(ttl))
            #expect(try await redis.set(key, to: "two", condition: .ifNotExists) == false)
            #expect(try await redis.getString(key) == "one")
            // A plain SET (here XX) replaces the value and drops the expiry, as in Redis.
            #expect(try await redis.set(key, to: "ＣＵＲＲＹ", condition: .ifExists))
            #expect(try await redis.getString(key) == "ＣＵＲＲＹ")
            #expect(try await redis.ttl(key) == .persistent)
            try await redis.set(key, to: "three", expiration: .milliseconds(50_000))
            #expect(try await redis.ttl(key) != .persistent)
            try await redis.set(key, to: "four")
            #expect(try await redis.ttl(key) == .persistent)
            #expect(try await redis.expire(key, seconds: 30))
            #expect(try await redis.expire(key + "-missing", seconds: 30) == false)
            #expect(try await redis.ttl(key + "-missing") == .missing)
            #expect(try await redis.del([key, key + "-missing"]) == 1)
        }
    }

    @Test func binaryValuesRoundTrip() async throws {
        try await withRedisClient(try TestEnvironment.redisURL()) { redis in
            let key = TestEnvironment.uniqueName("bin")
            let bytes: [UInt8] = [0, 13, 10, 255, 36, 42, 0]
            try await redis.set(key, to: .bytes(ByteBuffer(bytes: bytes)))
            #expect(try await redis.get(key).map { Array($0.readableBytesView) } == bytes)
        }
    }

    @Test func mgetIncrbyAndHashes() async throws {
        try await withRedisClient(try TestEnvironment.redisURL()) { redis in
            let a = TestEnvironment.uniqueName("a"), b = TestEnvironment.uniqueName("b"), h = TestEnvironment.uniqueName("h")
            try await redis.set(a, to: "1")
            let values = try await redis.mget([a, b])
            #expect(values.map { $0.map { String(buffer: $0) } } == ["1", nil])
            #expect(try await redis.incrby(a, 41) == 42)
            #expect(try await redis.hset(h, fields: [("x", "1"), ("y", "2")]) == 2)
            #expect(try await redis.hset(h, fields: [("x", "3")]) == 0)
            let fields = try await redis.hgetall(h)
            #expect(fields.mapValues { String(buffer: $0) } == ["x": "3", "y": "2"])
            #expect(try await redis.hgetall(h + "-missing").isEmpty)
            try await redis.ping()
        }
    }

    @Test func serverErrorsAreDistinctFromConnectionErrors() async throws {
        try await withRedisClient(try TestEnvironment.redisURL()) { redis in
            let h = TestEnvironment.uniqueName("h")
            try await redis.hset(h, fields: [("x", "1")])
            let error = await #expect(throws: RedisServerError.self) { try await redis.get(h) }
            #expect(error?.code == "WRONGTYPE")
            let unknown = await #expect(throws: RedisServerError.self) { try await redis.send(["NOSUCHCOMMAND"]) }
            #expect(unknown?.code == "ERR")
        }
        let port = try FreePort.find()
        // Nothing listens: the command fails at once as unavailable, without waiting for its
        // 30 s timeout (the bound leaves room for a busy machine).
        try await withRedisClient("redis://127.0.0.1:\(port)", commandTimeout: .seconds(30), waitForConnection: false) { redis in
            let started = ContinuousClock.now
            let error = await #expect(throws: RedisConnectionError.self) { try await redis.get("x") }
            #expect(error?.kind == .unavailable)
            #expect(ContinuousClock.now - started < .seconds(10))
        }
    }

    @Test func evalshaLoadsTheScriptAfterAFlush() async throws {
        // A private server: SCRIPT FLUSH would disturb scripts other tests run concurrently.
        try await RedisServerProcess.with { server in
            try await withRedisClient(server.url) { redis in
                let script = RedisScript("return redis.call('INCRBY', KEYS[1], ARGV[1])")
                let key = TestEnvironment.uniqueName("lua")
                #expect(try await redis.evalsha(script, keys: [key], arguments: ["5"]) == .integer(5))
                _ = try await redis.send(["SCRIPT", "FLUSH"])
                #expect(try await redis.evalsha(script, keys: [key], arguments: [.integer(2)]) == .integer(7))
                let sha = try await redis.send(["SCRIPT", "LOAD", .string(script.source)])
                #expect(sha.string == script.sha1)
            }
        }
    }
}

@Suite("Redis URLs")
struct RedisURLTests {
    @Test func parsesUserPasswordHostPortAndDatabase() throws {
        let full = try RedisConfiguration(url: "redis://alice:s%40cret@cache.internal:6380/3")
        #expect(full.host == "cache.internal")
        #expect(full.port == 6380)
        #expect(full.username == "alice")
        #expect(full.password == "s@cret")
        #expect(full.database == 3)
        let passwordOnly = try RedisConfiguration(url: "redis://:secret@127.0.0.1")
        #expect(passwordOnly.username == nil && passwordOnly.password == "secret" && passwordOnly.port == 6379 && passwordOnly.database == 0)
        let plain = try RedisConfiguration(url: "redis://localhost")
        #expect(plain.username == nil && plain.password == nil)
    }

    @Test(arguments: ["http://host", "redis://", "not a url", "redis://host/abc", "redis://host:70000"])
    func rejectsWhatItCannotServe(url: String) {
        #expect(throws: RedisConfigurationError.self) { try RedisConfiguration(url: url) }
    }

    @Test func redissTurnsOnTLSWithVerificationByDefault() throws {
        let plain = try RedisConfiguration(url: "redis://cache.internal")
        #expect(plain.tls == nil)
        let secure = try RedisConfiguration(url: "rediss://alice:secret@cache.internal:6380/2")
        #expect(secure.tls == RedisConfiguration.TLS())
        #expect(secure.tls?.verifyServerName == true && secure.tls?.caFile == nil && secure.tls?.serverName == nil)
        #expect(secure.host == "cache.internal" && secure.port == 6380 && secure.username == "alice" && secure.database == 2)
        #expect(secure != plain)
    }

    @Test func clusterURLsBecomeSeeds() throws {
        let cluster = try RedisConfiguration(clusterURLs: ["rediss://u:p@10.0.0.1:7000", "rediss://u:p@10.0.0.2:7001"])
        #expect(cluster.cluster?.seeds == [RedisEndpoint(host: "10.0.0.1", port: 7000), RedisEndpoint(host: "10.0.0.2", port: 7001)])
        #expect(cluster.tls != nil && cluster.username == "u" && cluster.password == "p")
        try cluster.validate()
        let mixed = #expect(throws: RedisConfigurationError.self) {
            try RedisConfiguration(clusterURLs: ["redis://10.0.0.1:7000", "rediss://10.0.0.2:7001"])
        }
        #expect(mixed?.message.contains("scheme or credentials") == true)
        #expect(throws: RedisConfigurationError.self) { try RedisConfiguration(clusterURLs: ["redis://10.0.0.1:7000/3"]) }
        #expect(throws: RedisConfigurationError.self) { try RedisConfiguration(clusterURLs: []) }
        var selected = try RedisConfiguration(url: "redis://10.0.0.1:7000/3")
        selected.cluster = .init()
        let database = #expect(throws: RedisConfigurationError.self) { try selected.validate() }
        #expect(database?.message.contains("only database 0") == true)
    }
}
