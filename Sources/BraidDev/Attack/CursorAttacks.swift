import BraidContracts
import BraidCore
import BraidHarness
import BraidDevSupport
import Crypto
import Foundation
import NIOHTTP1

/// Cursors and impression ids an attacker writes: a tampered cursor, one signed with the
/// development key (public in this repository) with its page size raised to 1000, and an
/// impression id minted with the development key to credit team B.
struct ForgedCursorAttack: AttackScenario {
    let name = "forged-cursors"
    /// The built-in development keys (BraidConfig's `SecretStrength`), public in this repository.
    static let developmentCursorKey = "braid-local-development-key"
    static let developmentImpressionKey = "braid-local-development-impression-key"

    func run(against target: AttackTarget) async throws -> AttackVerdict {
        var checks = AttackChecks()
        let page = try await target.request("/v1/search?q=chicken&per_page=5")
        let cursor = page.json?["next_cursor"] as? String ?? ""
        checks.expect(page.status == 200 && !cursor.isEmpty, "page 1: \(page.status) \(page.text.prefix(200))")
        guard var body = Self.base64URLDecode(cursor), body.count > 16 else { return checks.verdict("no cursor to forge") }
        body.removeLast(16)

        var tampered = Array(Self.base64URLDecode(cursor) ?? [])
        tampered[12] ^= 0x01  // the offset
        var oversized = body
        oversized[18] = UInt8(1_000 >> 8)  // the page size, big-endian at bytes 18-19
        oversized[19] = UInt8(1_000 & 0xFF)
        let forgeries = [
            ("tampered", Self.base64URLEncode(tampered)),
            ("re-signed with the development key", Self.sign(body, key: Self.developmentCursorKey)),
            ("per_page 1000, signed with the development key", Self.sign(oversized, key: Self.developmentCursorKey)),
        ]
        for (what, forged) in forgeries {
            let response = try await target.request("/v1/search?q=chicken&cursor=\(forged)")
            checks.expect(response.status == 400 && (response.json?["error"] as? [String: Any])?["code"] as? String == "invalid_cursor", "\(what): \(response.status) \(response.text.prefix(200))")
        }
        // An impression id minted with the development key, crediting team B for a click.
        let minted = ImpressionCodec(key: Array(Self.developmentImpressionKey.utf8)).encode(
            ImpressionToken(
                experiment: "default", offset: 0, teams: [.b, .b, .b], creditWindow: 0..<3, nonce: 42, issuedAt: Int64(Date().timeIntervalSince1970)))
        let click = try await target.request(
            "/v1/events", method: .POST, body: #"{"events":[{"type":"click","impression_id":"\#(minted)","position":1}]}"#)
        checks.expect(click.status == 400, "a minted impression id: \(click.status) \(click.text.prefix(200))")
        return checks.verdict("\(checks.passed)/\(checks.count) refused (3 cursors, 1 impression id)")
    }

    static func sign(_ body: [UInt8], key: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: Array(key.utf8)))
        return base64URLEncode(body + Array(mac.prefix(16)))
    }

    static func base64URLDecode(_ text: String) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).map(Array.init)
    }

    static func base64URLEncode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// A genuine cursor used again: the same page again (a read, harmless), but not for another
/// query, and not after it expired (`gateway.cursor_ttl_seconds`, 3 s in this run).
struct ReplayedCursorAttack: AttackScenario {
    let name = "replayed-cursors"

    func run(against target: AttackTarget) async throws -> AttackVerdict {
        var checks = AttackChecks()
        let page = try await target.request("/v1/search?q=pasta&per_page=5")
        let cursor = page.json?["next_cursor"] as? String ?? ""
        checks.expect(page.status == 200 && !cursor.isEmpty, "page 1: \(page.status)")
        let first = try await target.request("/v1/search?q=pasta&cursor=\(cursor)")
        let again = try await target.request("/v1/search?q=pasta&cursor=\(cursor)")
        let ids = { (response: HTTPProbe.Response) in (response.json?["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String } }
        checks.expect(first.status == 200 && again.status == 200 && ids(first) == ids(again) && !ids(first).isEmpty, "the same cursor twice: \(first.status), \(again.status)")
        let elsewhere = try await target.request("/v1/search?q=chicken&cursor=\(cursor)")
        checks.expect(elsewhere.status == 400, "for another query: \(elsewhere.status)")
        try await Task.sleep(for: .seconds(4))
        let expired = try await target.request("/v1/search?q=pasta&cursor=\(cursor)")
        let code = (expired.json?["error"] as? [String: Any])?["code"] as? String
        checks.expect(expired.status == 400 && code == "cursor_expired", "after its expiry: \(expired.status) \(code ?? "")")
        return checks.verdict("same page again: \(ids(first) == ids(again) ? "identical" : "differs"); other query \(elsewhere.status); after expiry \(expired.status) \(code ?? "")")
    }
}
