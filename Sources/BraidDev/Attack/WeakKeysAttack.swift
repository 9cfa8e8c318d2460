import BraidHarness
import Foundation

/// Services started beyond loopback with a weak secret must refuse to start, naming the key
/// and never its value: a placeholder the repository ships, the development key (none set),
/// a key of 16 bytes, and one secret used for two keys; the worker with a placeholder admin
/// token. They are pointed at 192.0.2.1 (TEST-NET-1, on no interface here): the check comes
/// before any socket is bound, and a process that got past it would fail to bind instead,
/// with another message.
struct WeakKeysAttack: AttackScenario {
    let name = "weak-keys"
    static let exposed = "192.0.2.1"

    func run(against target: AttackTarget) async throws -> AttackVerdict {
        var checks = AttackChecks()
        let short = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let shared = AttackTarget.Secrets.random()
        let placeholder = "CHANGE-ME-openssl-rand-base64-32"
        let cases: [(name: String, command: String, overrides: [String: String?], key: String, value: String?)] = [
            ("placeholder", "gateway", ["BRAID_GATEWAY_CURSOR_KEY": placeholder], "gateway.cursor_key is a published development key or a placeholder", placeholder),
            ("deny-listed", "gateway", ["BRAID_GATEWAY_IMPRESSION_KEY_FILE": nil], "gateway.impression_key is a published development key", nil),
            ("short", "gateway", ["BRAID_CONSOLE_TOKEN": short], "console.token holds 16 bytes", short),
            ("duplicate", "gateway", ["BRAID_ADMIN_TOKEN": shared, "BRAID_GATEWAY_CURSOR_KEY": shared], "admin.token is the same secret as gateway.cursor_key", shared),
            ("worker placeholder", "worker", ["BRAID_ADMIN_TOKEN": "CHANGE-ME-admin-token"], "admin.token is a published development key", "CHANGE-ME-admin-token"),
        ]
        var refused: [String] = []
        for (index, probe) in cases.enumerated() {
            var overrides = probe.overrides
            overrides[probe.command == "gateway" ? "BRAID_GATEWAY_HOST" : "BRAID_WORKER_METRICS_HOST"] = Self.exposed
            let (status, output) = try await target.attemptStart(probe.command, overrides, name: "weak-key-\(index)")
            let named = output.contains(probe.key)
            let echoed = probe.value.map { output.contains($0) } ?? false
            checks.expect(status != nil && status != 0, "\(probe.name): the \(probe.command) did not refuse (status \(String(describing: status)))")
            checks.expect(named, "\(probe.name): the refusal does not say \"\(probe.key)\": \(output.suffix(400))")
            checks.expect(!echoed, "\(probe.name): the refusal repeats the value")
            if status != nil, status != 0, named, !echoed { refused.append(probe.name) }
        }
        return checks.verdict("\(refused.count)/\(cases.count) refused to start naming the key (\(refused.joined(separator: ", ")))")
    }
}
