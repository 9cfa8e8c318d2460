import Crypto
import Foundation

/// The ways a key can show up in printed text: its bytes as Swift prints a `[UInt8]`
/// (`[12, 250, …`), as hex (either case), base64 and base64url, and as text when it is text.
/// Leak checks look for every form of every key, configured and derived.
public enum SecretForms {
    /// The forms of `bytes` worth looking for: long enough that a match is not chance.
    public static func of(_ bytes: [UInt8]) -> [String] {
        guard bytes.count >= 8 else { return [] }
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        let base64 = Data(bytes).base64EncodedString()
        var forms = [
            // Swift's `[UInt8]` description, and a dump's element lines, begin the same way.
            "[" + bytes.prefix(8).map(String.init).joined(separator: ", "),
            bytes.prefix(8).map { "- \($0)" }.joined(separator: "\n"),
            hex, hex.uppercased(),
            String(base64.prefix(24)),
            String(base64.prefix(24)).replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_"),
        ]
        if let text = String(bytes: bytes, encoding: .utf8), text.allSatisfy({ !$0.isWhitespace }), text.count >= 8 { forms.append(text) }
        return forms
    }

    /// HMAC-SHA256(key, label): how Braid derives one key per use from a configured secret.
    public static func derived(_ key: String, label: String) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: Array(label.utf8), using: SymmetricKey(data: Array(key.utf8))))
    }

    /// Every key Braid derives from the impression key (signing ids, pseudonymous user keys).
    public static func impressionKeys(_ impressionKey: String) -> [(name: String, bytes: [UInt8])] {
        [
            ("impression signing key", derived(impressionKey, label: "braid-impression")),
            ("user-key secret", derived(impressionKey, label: "braid-user-key")),
        ]
    }

    /// The first form of any of `keys` found in `text`, with the key's name.
    public static func firstLeak(in text: String, of keys: [(name: String, bytes: [UInt8])]) -> String? {
        // A dump indents each element by its depth: compare lines without their indentation too.
        let unindented = text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.drop(while: { $0 == " " }) }.joined(separator: "\n")
        for (name, bytes) in keys {
            for form in of(bytes) where text.contains(form) || unindented.contains(form) { return "\(name) as \(form.prefix(32))" }
        }
        return nil
    }
}
