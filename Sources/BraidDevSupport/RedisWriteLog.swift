import BraidRedis
import Foundation

/// Every key Redis SETs, in the order Redis executed the writes (also inside Lua scripts),
/// from keyspace notifications read by a `redis-cli psubscribe` child process. Tests use it
/// to see the order in which snapshot versions were written.
public final class RedisWriteLog: Sendable {
    private let process: ChildProcess
    private let file: URL
    private let previousSetting: String

    /// Turns keyspace events for string commands on (until ``stop(redis:)``) and subscribes.
    public static func start(redis: RedisClient, url: String) async throws -> RedisWriteLog {
        let previous = try await redis.send(["CONFIG", "GET", "notify-keyspace-events"])
        guard case .array(let parts?) = previous, parts.count == 2, let setting = parts[1].string else {
            throw ChildProcessError(description: "unexpected reply to CONFIG GET: \(previous)")
        }
        _ = try await redis.send(["CONFIG", "SET", "notify-keyspace-events", "E$"])
        guard let components = URLComponents(string: url), let host = components.host, let port = components.port else {
            throw ChildProcessError(description: "not a redis URL: \(url)")
        }
        let file = try TestEnvironment.runDirectory().appendingPathComponent("\(TestEnvironment.uniqueName("writes")).csv")
        let process = try await TestRun.start(
            try Toolchain.find("redis-cli"), [ "-h", host, "-p", String(port), "--csv", "psubscribe", "__keyevent@*__:set"], log: file)
        let log = RedisWriteLog(process: process, file: file, previousSetting: setting)
        // Subscribed once redis-cli confirmed it: writes before that would be missed.
        let deadline = ContinuousClock.now + .seconds(10)
        while !(try log.text().contains("\"psubscribe\"")) {
            guard ContinuousClock.now < deadline else { throw ChildProcessError(description: "redis-cli did not subscribe") }
            try await Task.sleep(for: .milliseconds(50))
        }
        return log
    }

    private init(process: ChildProcess, file: URL, previousSetting: String) {
        self.process = process
        self.file = file
        self.previousSetting = previousSetting
    }

    private func text() throws -> String {
        (try? String(contentsOf: file, encoding: .utf8)) ?? ""
    }

    /// The keys written so far, in order.
    public func keys() throws -> [String] {
        try text().split(separator: "\n").compactMap { line in
            guard line.hasPrefix("\"pmessage\""), let last = line.split(separator: ",").last else { return nil }
            return String(last.dropFirst().dropLast())
        }
    }

    /// Stops listening and restores the server's previous notification setting.
    public func stop(redis: RedisClient) async throws {
        await process.stop(grace: .seconds(2))
        _ = try await redis.send(["CONFIG", "SET", "notify-keyspace-events", .string(previousSetting)])
        try? FileManager.default.removeItem(at: file)
    }
}
