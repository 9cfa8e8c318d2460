import BraidHarness
import BraidDevSupport
import Foundation

/// Moving slots of a cluster the way an operator does: by hand, step by step (through
/// ``RedisClusterAdmin``), and with `redis-cli --cluster reshard`.
enum SlotMoves {
    /// Moves `slot` from `source` to `target`: IMPORTING on the target, MIGRATING on the
    /// source, MIGRATE of its keys, SETSLOT NODE on every primary. `pause` before and after
    /// the keys move, so that clients meet the slot half moved (ASK, TRYAGAIN) under load,
    /// not only the final MOVED.
    static func move(_ slot: Int, from source: String, to target: String, pause: Duration, admin: RedisClusterAdmin) async throws {
        try await admin.beginMigration(slot: slot, from: source, to: target)
        try await Task.sleep(for: pause)
        while true {
            let keys = try await admin.keys(inSlot: slot, on: source)
            if keys.isEmpty { break }
            try await admin.migrate(keys: keys, from: source, to: target)
        }
        try await Task.sleep(for: pause)
        try await admin.finishMigration(slot: slot, from: source, to: target)
    }

    /// Waits until `redis-cli --cluster check` finds every node agreeing and no slot open.
    static func waitUntilAgreed(via node: String, timeout: Duration) async throws -> Bool {
        let cli = try Toolchain.find("redis-cli")
        let deadline = ContinuousClock.now + timeout
        while try await ChildProcess.run(cli, ["--cluster", "check", node]).status != 0 {
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: .milliseconds(200))
        }
        return true
    }

    /// `redis-cli --cluster reshard`: moves `slots` slots from `source` to `target` with
    /// their keys; its output goes to `log`.
    static func reshard(slots: Int, from source: String, to target: String, admin: RedisClusterAdmin, log: URL) async throws {
        let (status, output) = try await ChildProcess.run(
            try Toolchain.find("redis-cli"),
            [
                "--cluster", "reshard", source, "--cluster-from", try await admin.nodeID(source), "--cluster-to", try await admin.nodeID(target),
                "--cluster-slots", "\(slots)", "--cluster-yes",
            ], timeout: .seconds(300))
        try? output.write(to: log, atomically: true, encoding: .utf8)
        guard status == 0 else { throw HarnessError.failed("redis-cli --cluster reshard failed; see \(log.path)") }
    }
}
