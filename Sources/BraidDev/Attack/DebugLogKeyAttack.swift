import BraidCore
import BraidHarness
import BraidDevSupport
import Crypto
import Foundation
import NIOHTTP1

/// Whoever reads a debug log must not be able to sign evidence. A second gateway and worker of
/// the target's configuration run at `BRAID_LOGGING_LEVEL=debug`; every byte array, hex string
/// and base64 string of 32 bytes their logs hold is tried as the impression signing key: a
/// genuine impression id re-signed with a new nonce, posted as a click. None may be accepted,
/// and no form of a configured or derived key may be in the logs.
///
/// The control: the same forgery signed with the real derived key is accepted, so the forgery
/// itself is sound and a clean result means the key was not there to find.
struct DebugLogKeyAttack: AttackScenario {
    let name = "forged-id-from-debug-log"

    func run(against target: AttackTarget) async throws -> AttackVerdict {
        var checks = AttackChecks()
        let debug = target.environment([
            "BRAID_LOGGING_LEVEL": "debug", "BRAID_GATEWAY_ADMIN_PORT": "\(try Ports.free())",
            "BRAID_WORKER_METRICS_PORT": "\(try Ports.free())",
        ])
        let gateway = try await BraidService.gateway(in: target.run, name: "debug-gateway", environment: debug)
        let worker = try await BraidService.worker(in: target.run, name: "debug-worker", environment: debug)
        // A page through the debug gateway, so that it has used its keys; then both stop.
        let alice = try await target.issuer.token(for: "u00001")
        let page = try await Self.pageWithImpression(target, base: gateway.baseURL, token: alice)
        await gateway.stop()
        await worker.stop()
        let logs = ["debug-gateway.log", "debug-worker.log"].map { (try? String(contentsOf: target.run.file($0), encoding: .utf8)) ?? "" }
        let log = logs.joined(separator: "\n")
        checks.expect(log.contains("Starting service"), "the debug logs describe no service: the check would prove nothing")

        let keys = SecretForms.impressionKeys(target.secrets.impressionKey)
            + target.secrets.all.map { ("a configured secret", Array($0.utf8)) } + [("the HS256 key", Array(target.issuer.hs256Key.utf8))]
        let leak = SecretForms.firstLeak(in: log, of: keys)
        checks.expect(leak == nil, "the debug logs hold \(leak ?? "")")

        guard page != nil else {
            checks.expect(false, "no page with an impression id from the debug gateway: it never used its keys")
            return checks.verdict("no page from the debug gateway")
        }
        let candidates = Self.candidateKeys(in: log)
        var accepted = 0
        for candidate in candidates.prefix(500) where try await Self.forgedClick(target, key: candidate, token: alice).accepted {
            accepted += 1
        }
        checks.expect(accepted == 0, "\(accepted) ids re-signed with keys from the debug log were accepted")
        let real = SecretForms.impressionKeys(target.secrets.impressionKey)[0].bytes
        let control = try await Self.forgedClick(target, key: real, token: alice)
        checks.expect(control.accepted, "the control (the real derived key) was not accepted: \(control.answer)")
        return checks.verdict(
            "\(logs.map(\.count).reduce(0, +)) bytes of debug logs: \(leak == nil ? "no" : "a") key form found, \(candidates.count) 32-byte "
                + "candidates tried, \(accepted) forged ids accepted (control with the real key: \(control.accepted ? "accepted" : "refused"))")
    }

    /// A team-draft page's impression id, its arm (the experiment) and a B slot's position.
    static func pageWithImpression(_ target: AttackTarget, base: String, token: String) async throws -> (String, String, Int)? {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let page = try await target.request("/v1/search?q=chicken&per_page=10", token: token, base: base).json
            if let id = page?["impression_id"] as? String, let arm = (page?["interleaving"] as? [String: Any])?["arm"] as? String,
                let b = (page?["items"] as? [[String: Any]])?.first(where: { $0["team"] as? String == "B" })?["position"] as? Int
            {
                return (id, arm, b)
            }
            try await Task.sleep(for: .milliseconds(250))
        }
        return nil
    }

    /// 32-byte values in the text: `[n, n, …]` arrays, a dump's runs of `- n` lines, hex and
    /// base64 (either alphabet) words.
    static func candidateKeys(in text: String) -> [[UInt8]] {
        var found: Set<[UInt8]> = []
        let array = /\[(?:\s*\d{1,3}\s*,){31}\s*\d{1,3}/
        for match in text.matches(of: array) {
            let numbers = match.output.split(whereSeparator: { !$0.isNumber }).compactMap { UInt8($0) }
            if numbers.count == 32 { found.insert(numbers) }
        }
        var run: [UInt8] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.drop(while: { $0 == " " })
            if trimmed.hasPrefix("- "), let byte = UInt8(trimmed.dropFirst(2)) {
                run.append(byte)
                if run.count >= 32 { found.insert(Array(run.suffix(32))) }
            } else {
                run.removeAll()
            }
        }
        for word in text.split(whereSeparator: { !($0.isLetter || $0.isNumber || "+/=_-".contains($0)) }) {
            if word.count == 64, let bytes = Self.hex(word) { found.insert(bytes) }
            if word.count >= 43, word.count <= 44 {
                let standard = word.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
                let padded = standard + String(repeating: "=", count: (4 - standard.count % 4) % 4)
                if let data = Data(base64Encoded: padded), data.count == 32 { found.insert(Array(data)) }
            }
        }
        return Array(found)
    }

    static func hex(_ text: Substring) -> [UInt8]? {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }

    /// `id` with its nonce replaced, signed with `key` as the gateway signs ids: an id no
    /// gateway ever issued.
    static func forge(_ id: String, experiment: String, key: [UInt8]) -> String? {
        guard let bytes = Base64URL.decode(id), bytes.count > 16 + 9 + experiment.utf8.count else { return nil }
        var body = Array(bytes.dropLast(16))
        let nonceEnd = body.count - 1 - experiment.utf8.count
        for index in (nonceEnd - 8)..<nonceEnd { body[index] = UInt8.random(in: 0...255) }
        let mac = HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: key))
        return Base64URL.encode(body + Array(mac).prefix(16))
    }

    /// Signs a genuine id of the target, fetched just now, with `key` (and a new nonce) and
    /// posts it as a click on a B slot: whether it was accepted, and the gateway's last answer.
    /// Fetched just now because the target's ids expire within seconds (its events window): an
    /// expired forgery would be refused whatever its key. A 429 paces the attempts; it says
    /// nothing about the key.
    static func forgedClick(_ target: AttackTarget, key: [UInt8], token: String) async throws -> (accepted: Bool, answer: String) {
        var answer = "no page with an impression id to forge from"
        for _ in 0..<10 {
            guard let (id, arm, position) = try await pageWithImpression(target, base: target.publicURL, token: token),
                let forged = forge(id, experiment: arm, key: key)
            else { return (false, answer) }
            let events: [[String: Any]] = [["type": "click", "impression_id": forged, "position": position]]
            let body = String(decoding: try JSONSerialization.data(withJSONObject: ["events": events]), as: UTF8.self)
            let response = try await target.request("/v1/events", method: .POST, body: body, token: token)
            answer = "\(response.status) \(response.text.prefix(300))"
            guard response.status == 429 else {
                return (response.status == 202 && (response.json?["accepted"] as? Int ?? 0) > 0, answer)
            }
            try await Task.sleep(for: .seconds(1))
        }
        return (false, answer)
    }
}
