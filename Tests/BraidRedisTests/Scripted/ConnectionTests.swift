import BraidTestSupport
import BraidCore
@testable import BraidRedis
import NIOCore
import NIOEmbedded
import Synchronization
import Testing

/// The real standalone client (pool, connection set-up, pipelining, timeouts) against one
/// scripted node. The channels' event loop keeps its own time, so a command timeout is
/// reached by moving that clock, not by waiting.
@Suite("Redis connections over a scripted node", .timeLimit(.minutes(5)))
struct ConnectionTests {
    static let node = RedisEndpoint(host: "127.0.0.1", port: 6379)

    static func configuration(
        username: String? = nil, password: String? = nil, database: Int = 0, commandTimeout: Duration = .seconds(2), poolSize: Int = 1
    ) -> RedisConfiguration {
        RedisConfiguration(
            host: node.host, port: node.port, username: username, password: password, database: database, poolSize: poolSize,
            commandTimeout: commandTimeout, connectTimeout: .milliseconds(500),
            reconnectBackoff: .init(initial: .milliseconds(5), maximum: .milliseconds(20)))
    }
    @Test func setUpAuthenticatesAndSelectsTheDatabaseBeforeAnyCommand() async throws {
        let redis = ScriptedRedis()
        redis.serve(Self.node) { command, _ in
            switch command.first {
            case "AUTH", "SELECT": .reply(.ok)
            case "GET": .reply(.bulk("v"))
            default: nil
            }
        }
        try await redis.withClient(Self.configuration(username: "alice", password: "secret", database: 3)) { client throws in
            #expect(try await client.getString("k") == "v")
        }
        // AUTH and SELECT stand in for the PING that checks a bare connection.
        #expect(redis.commands(on: Self.node) == [["AUTH", "alice", "secret"], ["SELECT", "3"], ["GET", "k"]])
    }

    @Test func aRefusedSetUpIsNamedAndRetriedWithBackoff() async throws {
        let redis = ScriptedRedis()
        redis.serve(Self.node) { command, _ in
            command.first == "AUTH" ? .reply(.error("WRONGPASS invalid username-password pair or user is disabled.")) : nil
        }
        let error = await #expect(throws: RedisConnectionError.self) {
            try await redis.withClient(Self.configuration(password: "wrong"), connected: false) { client in
                try await eventually("a second attempt") { redis.count(["AUTH"]) >= 2 }
                try await client.waitUntilConnected(timeout: .milliseconds(100))
            }
        }
        #expect(error?.kind == .unavailable)
        #expect(error?.message.contains("refused the connection set-up (AUTH)") == true, "\(String(describing: error))")
        #expect(error?.message.contains("WRONGPASS") == true)
        #expect(redis.count(["AUTH"]) > 1, "the pool kept trying")
        #expect(redis.count(["GET"]) == 0)
    }

    /// Concurrent commands pipeline on the one connection and each gets its own reply.
    @Test func pipelinedCommandsEachGetTheirOwnReply() async throws {
        let redis = ScriptedRedis()
        redis.serve(Self.node) { command, _ in command.first == "GET" ? .reply(.bulk("value of \(command[1])")) : nil }
        try await redis.withClient(Self.configuration()) { client in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        let value = try await client.getString("k\(index)")
                        #expect(value == "value of k\(index)")
                    }
                }
                try await group.waitForAll()
            }
        }
        #expect(redis.channels(to: Self.node).count == 1)
        #expect(redis.count(["GET"]) == 200)
    }

    /// No reply within the command timeout: the command fails as a timeout, the connection
    /// (which a late reply would desynchronise) is closed, and the pool opens a new one.
    @Test func aCommandWithoutAReplyTimesOutAndItsConnectionIsReplaced() async throws {
        let redis = ScriptedRedis()
        redis.serve(Self.node) { command, _ in
            switch command.first {
            case "GET": .silence
            case "ECHO": .reply(.bulk(command[1]))
            default: nil
            }
        }
        try await redis.withClient(Self.configuration(commandTimeout: .seconds(30))) { client in
            let first = try #require(redis.channels(to: Self.node).first)
            let waiting = Task { try await client.get("never answered") }
            try await eventually("the GET reached the node") { redis.count(["GET"]) == 1 }
            // 30 s of the connection's clock pass in no time.
            await first.testingEventLoop.advanceTime(by: .seconds(30))
            let error = await #expect(throws: RedisConnectionError.self) { _ = try await waiting.value }
            #expect(error?.kind == .timeout)
            #expect(!first.isActive, "the timed-out connection is closed")
            try await eventually("a new connection") { redis.channels(to: Self.node).count == 2 }
            try await client.waitUntilConnected(timeout: .seconds(120))
            #expect(try await client.send(["ECHO", "fresh"]).string == "fresh")
        }
    }

    /// Packets to a node can vanish (no RST): once one command went unanswered for its timeout,
    /// the pool's other connections are not trusted either, so commands fail at once instead
    /// of each costing another timeout, until a new connection to the node is set up.
    @Test func afterATimeoutCommandsFailAtOnceUntilANewConnectionAnswers() async throws {
        let redis = ScriptedRedis()
        let answering = Mutex(true)
        redis.serve(Self.node) { command, _ in
            switch command.first {
            case "GET": .silence
            // New connections' set-up hangs while the node "does not answer".
            case "PING": answering.withLock { $0 } ? .reply(.simpleString("PONG")) : .silence
            case "ECHO": .reply(.bulk(command[1]))
            default: nil
            }
        }
        try await redis.withClient(Self.configuration(commandTimeout: .seconds(30), poolSize: 2)) { client in
            try await eventually("both connections up") { redis.channels(to: Self.node).filter(\.isActive).count == 2 }
            #expect(try await client.send(["ECHO", "before"]).string == "before")
            answering.withLock { $0 = false }
            let waiting = Task { try await client.get("never answered") }
            try await eventually("the GET reached the node") { redis.count(["GET"]) == 1 }
            for channel in redis.channels(to: Self.node) { await channel.testingEventLoop.advanceTime(by: .seconds(30)) }
            let timeout = await #expect(throws: RedisConnectionError.self) { _ = try await waiting.value }
            #expect(timeout?.kind == .timeout)
            // The other connection is still open, and the node would answer ECHO on it: it is
            // not used until a new connection has been set up.
            let stillOpen = redis.channels(to: Self.node).contains { $0.isActive }
            #expect(stillOpen)
            let failed = await #expect(throws: RedisConnectionError.self) { _ = try await client.send(["ECHO", "during"]) }
            #expect(failed?.kind == .unavailable)
            #expect(failed?.message.contains("went unanswered") == true, "\(failed?.message ?? "")")
            #expect(redis.count(["ECHO", "during"]) == 0)

            // The replacement's set-up hangs on its PING; once the node answers again, it times
            // out (on its channel's clock) and the next attempt answers.
            answering.withLock { $0 = true }
            let deadline = ContinuousClock.now + .seconds(120)
            var answered = false
            while !answered {
                try #require(ContinuousClock.now < deadline, "no new connection within 120 s")
                for channel in redis.channels(to: Self.node) where channel.isActive {
                    await channel.testingEventLoop.advanceTime(by: .seconds(30))
                }
                answered = (try? await client.send(["ECHO", "after"]).string) == "after"
                if !answered { try await Task.sleep(for: .milliseconds(10)) }
            }
            #expect(answered)
        }
    }

    /// While the server is down every command fails at once (a page is served degraded, it
    /// does not hang); the pool reconnects by itself when the server is back.
    @Test func failsFastWhileTheServerIsDownAndReconnectsByItself() async throws {
        let redis = ScriptedRedis()
        redis.serve(Self.node) { command, _ in command.first == "GET" ? .reply(.bulk("v")) : nil }
        // Commands time out on the channel's clock, which nothing moves here: one that waited
        // for a reply instead of failing would never return.
        try await redis.withClient(Self.configuration()) { client in
            #expect(try await client.getString("k") == "v")
            redis.kill(Self.node)
            for _ in 0..<5 {
                let started = ContinuousClock.now
                let error = await #expect(throws: RedisConnectionError.self) { _ = try await client.get("k") }
                #expect(error?.kind == .unavailable || error?.kind == .closed)
                #expect(ContinuousClock.now - started < .seconds(10))
            }
            redis.revive(Self.node)
            try await client.waitUntilConnected(timeout: .seconds(120))
            #expect(try await client.getString("k") == "v")
        }
        #expect(redis.channels(to: Self.node).count == 2)
    }

    @Test func noscriptLoadsTheScriptAndSendsTheCommandAgain() async throws {
        let redis = ScriptedRedis()
        let script = RedisScript("return 7")
        let loads = ScriptedCounter()
        redis.serve(Self.node) { command, _ in
            switch command.first {
            case "SCRIPT":
                _ = loads.next()
                return .reply(.bulk(script.sha1))
            case "EVALSHA":
                return loads.value > 0 ? .reply(.integer(7)) : .reply(.error("NOSCRIPT No matching script. Please use EVAL."))
            default:
                return nil
            }
        }
        try await redis.withClient(Self.configuration()) { client throws in
            #expect(try await client.evalsha(script, keys: ["k"], arguments: []) == .integer(7))
            #expect(try await client.evalsha(script, keys: ["k"], arguments: []) == .integer(7))
        }
        #expect(redis.commands(on: Self.node).filter { $0.first != "PING" } == [
            ["EVALSHA", script.sha1, "1", "k"], ["SCRIPT", "LOAD", "return 7"], ["EVALSHA", script.sha1, "1", "k"],
            ["EVALSHA", script.sha1, "1", "k"],
        ])
    }
}
