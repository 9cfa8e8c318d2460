import BraidHarness
import Foundation

/// Every key Redis SETs, in order, from keyspace notifications read by `redis-cli` on the
/// Redis host itself (so a cut link between that host and the others does not blind it).
struct WriteLog: Sendable {
    let process: ChildProcess
    let file: URL

    static func start(on redis: RedisServer, in world: NetworkWorld) async throws -> WriteLog {
        let name = "writes-\(redis.port).csv"
        let process = try await world.world.run.start(
            try Toolchain.find("redis-cli"),
            ["-h", redis.placement.address, "-p", "\(redis.port)", "--csv", "psubscribe", "__keyevent@*__:set"],
            log: name, namespace: redis.placement.namespace)
        let log = WriteLog(process: process, file: world.world.file(name))
        try await Readiness.wait(for: "redis-cli psubscribe", process: process, timeout: .seconds(10)) {
            Readiness.log(log.file, contains: "\"psubscribe\"")
        }
        return log
    }

    /// The keys set so far, in order.
    func keys() -> [String] {
        let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("\"pmessage\""), let last = line.split(separator: ",").last else { return nil }
            return String(last.dropFirst().dropLast())
        }
    }

    /// How often each snapshot version (`…:v:<version>` key) was written.
    func versionWrites() -> [String: Int] {
        var seen: [String: Int] = [:]
        for key in keys() where key.contains("}:v:") { seen[key, default: 0] += 1 }
        return seen
    }

    /// Snapshot versions written more than once.
    func versionsWrittenTwice() -> Int { versionWrites().values.filter { $0 > 1 }.count }
}
