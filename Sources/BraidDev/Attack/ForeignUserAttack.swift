import BraidHarness
import BraidDevSupport
import Foundation
import NIOHTTP1

/// Reading another user's components: with no credential, a token whose claims were changed
/// under its signature, an expired token, a token for another audience, and a valid token of
/// one user naming another. Each on every personalised route; the own user's read is the control.
struct ForeignUserAttack: AttackScenario {
    let name = "foreign-user"

    func run(against target: AttackTarget) async throws -> AttackVerdict {
        var checks = AttackChecks()
        let issuer = target.issuer
        let victim = "u00002"
        let mine = try await issuer.token(for: "u00001")
        let attempts: [(String, String?, Int)] = [
            ("no credential", nil, 401),
            ("wrong signature", TestTokenIssuer.spliced(mine, payloadOf: try await issuer.token(for: victim)), 401),
            ("expired", try await issuer.token(for: victim, expiresIn: -3_600), 401),
            ("wrong audience", try await issuer.token(for: victim, audience: "another-service"), 401),
            ("another user's name", mine, 403),
        ]
        let routes: [(String, String?)] = [
            ("/v1/feeds/home?user=\(victim)", nil), ("/v1/feeds/home/components/my-week?user=\(victim)", nil),
            ("/v1/feeds/profile/components/header?user=\(victim)", nil),
            ("/v1/feeds/home/components:batchGet", #"{"user":"\#(victim)","components":["my-week","recommended"]}"#),
        ]
        var refused = 0
        for (what, token, expected) in attempts {
            for (path, body) in routes {
                let response = try await target.request(path, method: body == nil ? .GET : .POST, body: body, token: token)
                let leaked = response.text.contains(victim) && response.status == 200
                checks.expect(response.status == expected && !leaked, "\(what) on \(path): \(response.status) \(response.text.prefix(160))")
                if response.status == expected { refused += 1 }
            }
        }
        // The control: each user reads their own components.
        let own = try await target.request("/v1/feeds/home/components/my-week", token: try await issuer.token(for: victim))
        checks.expect(own.status == 200, "the user's own read: \(own.status) \(own.text.prefix(160))")
        return checks.verdict("\(refused)/\(attempts.count * routes.count) refused (401 without a valid token, 403 naming another user); own read \(own.status)")
    }
}
