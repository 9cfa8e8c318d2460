import BraidRedis
import BraidTestSupport
import Foundation
import Synchronization
import Testing

@Suite("Redis client under load and faults", .integration)
struct RedisResilienceTests {
    @Test func tenThousandConcurrentGetsOnOneClientAreAllAnsweredCorrectly() async throws {
        // What is checked is that every reply reaches its own request, not how fast: 10,000
        // commands in flight on a shared 2-core machine can queue for longer than the usual 2 s.
        try await withRedisClient(try TestEnvironment.redisURL(), poolSize: 4, commandTimeout: .seconds(30)) { redis in
            let prefix = TestEnvironment.uniqueName("many")
            let count = 10_000
            // Distinct values per key, so a reply delivered to the wrong request is caught.
            for batch in stride(from: 0, to: count, by: 1000) {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for i in batch..<(batch + 1000) {
                        group.addTask { try await redis.set("\(prefix):\(i)", to: .string("value-\(i)"), expiration: .seconds(120)) }
                    }
                    try await group.waitForAll()
                }
            }
            let wrong = try await withThrowingTaskGroup(of: Int.self) { group in
                for i in 0..<count {
                    group.addTask { try await redis.getString("\(prefix):\(i)") == "value-\(i)" ? 0 : 1 }
                }
                return try await group.reduce(0, +)
            }
            #expect(wrong == 0)
        }
    }

    @Test func authenticatesWithAnACLUserAndSelectsTheDatabase() async throws {
        try await RedisServerProcess.with { server in
            try await withRedisClient(server.url) { admin in
                _ = try await admin.send(["ACL", "SETUSER", "alice", "on", ">wonderland", "~*", "&*", "+@all"])
                _ = try await admin.send(["ACL", "SETUSER", "default", "off"])
            }
            try await withRedisClient("redis://alice:wonderland@127.0.0.1:\(server.port)/5") { redis in
                try await redis.set("who", to: "alice")
                let whoami = try await redis.send(["ACL", "WHOAMI"])
                #expect(whoami.string == "alice")
                #expect(try await redis.send(["CLIENT", "INFO"]).string?.contains("db=5") == true)
            }
            let refused = await #expect(throws: RedisConnectionError.self) {
                try await withRedisClient("redis://alice:wrong@127.0.0.1:\(server.port)/5") { _ in }
            }
            #expect(refused?.kind == .unavailable)
        }
    }

    @Test func failsFastWhileRedisIsDownAndRecoversByItself() async throws {
        try await RedisServerProcess.with { server in
            // A command timeout far above the bound below: a command that waited for it instead
            // of failing at once would take 10 s; the bound leaves the rest to a busy machine
            // (the fast tier runs beside this test and can keep its task off a thread for seconds).
            try await withRedisClient(server.url, poolSize: 2, commandTimeout: .seconds(10)) { redis in
                try await redis.set("k", to: "before")
                await server.stop()
                // While down: every command fails quickly with a connection error, none hangs.
                var failures = 0
                for _ in 0..<20 {
                    let started = ContinuousClock.now
                    do {
                        _ = try await redis.get("k")
                    } catch let error as RedisConnectionError {
                        failures += 1
                        #expect([.unavailable, .closed].contains(error.kind), "\(error)")
                    }
                    #expect(ContinuousClock.now - started < .seconds(5))
                    try await Task.sleep(for: .milliseconds(20))
                }
                #expect(failures == 20)
                try await server.start()
                // The same client, no restart: it reconnects within its backoff cap (2 s).
                let deadline = ContinuousClock.now + .seconds(10)
                var recovered = false
                while ContinuousClock.now < deadline {
                    if (try? await redis.set("k", to: "after")) != nil { recovered = true; break }
                    try await Task.sleep(for: .milliseconds(50))
                }
                #expect(recovered)
                #expect(try await redis.getString("k") == "after")
            }
        }
    }

    @Test func aCommandPastItsDeadlineTimesOutAndTheClientCarriesOn() async throws {
        try await RedisServerProcess.with(extraArguments: ["--enable-debug-command", "yes"]) { server in
            try await withRedisClient(server.url, poolSize: 1, commandTimeout: .seconds(2)) { redis in
                let error = await #expect(throws: RedisConnectionError.self) {
                    try await redis.send(["DEBUG", "SLEEP", "0.5"], timeout: .milliseconds(100))
                }
                #expect(error?.kind == .timeout)
                // The poisoned connection was replaced; later commands get their own replies.
                try await redis.waitUntilConnected()
                let deadline = ContinuousClock.now + .seconds(5)
                var answered: String?
                while ContinuousClock.now < deadline, answered == nil {
                    answered = try? await redis.send(["ECHO", "fresh"]).string
                    if answered == nil { try await Task.sleep(for: .milliseconds(50)) }
                }
                #expect(answered == "fresh")
            }
        }
    }
}
