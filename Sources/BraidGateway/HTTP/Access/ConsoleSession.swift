import BraidCore
import Crypto
import Foundation

/// The console's session cookie: what a person gets for presenting `console.token` once.
///
/// The cookie is `1.<expiry>.<nonce>.<mac>` (expiry in seconds since 1970, an 8-byte random
/// nonce in hex, the first 16 bytes of an HMAC-SHA256 in base64url), signed with a key derived
/// from the console token. So the token itself never travels in a cookie, a stolen cookie
/// works until its expiry only, and rotating the token ends every session at once.
struct ConsoleSession: Sendable, RedactedDescription {
    static let cookieName = "braid_console"
    private static let label = "braid-console-session"
    private static let macLength = 16

    private let key: Secret
    let lifetime: Duration

    init(token: Secret, lifetime: Duration) {
        key = token.derived(label: Self.label)
        self.lifetime = lifetime
    }

    /// A new session's cookie value, valid for ``lifetime`` from `now`.
    func issue(now: Date = Date()) -> String {
        let expiry = Int64(now.timeIntervalSince1970) + Int64(lifetime.components.seconds)
        let nonce = (0..<8).map { _ in UInt8.random(in: .min ... .max) }
        let body = "1.\(expiry).\(Hex.string(nonce))"
        return "\(body).\(Base64URL.encode(mac(body)))"
    }

    /// Whether `cookie` is a session this gateway's token issued and that has not expired.
    func isValid(_ cookie: String, now: Date = Date()) -> Bool {
        let parts = cookie.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "1", let expiry = Int64(parts[1]), parts[2].count == 16,
            let offered = Base64URL.decode(String(parts[3])), offered.count == Self.macLength
        else { return false }
        let body = parts[0...2].joined(separator: ".")
        guard Secret(bytes: mac(body)).matches(offered) else { return false }
        return Int64(now.timeIntervalSince1970) < expiry
    }

    /// The `Set-Cookie` value: HttpOnly and SameSite=Strict always, `Secure` when the console is
    /// reached over TLS or beyond loopback.
    func setCookie(_ value: String, secure: Bool) -> String {
        "\(Self.cookieName)=\(value); Path=/; Max-Age=\(lifetime.components.seconds); HttpOnly; SameSite=Strict\(secure ? "; Secure" : "")"
    }

    private func mac(_ body: String) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: Array(body.utf8), using: key.symmetricKey).prefix(Self.macLength))
    }
}
