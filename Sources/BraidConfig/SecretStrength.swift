import Foundation

/// Whether a secret (a cursor or impression key, a token) is fit for a process that can be
/// reached beyond loopback: set, not a value this repository publishes, at least
/// ``minimumBytes`` once decoded, and not shared with another of the process's secrets.
///
/// Secrets are written as hex or base64 (either alphabet, padding optional), the forms
/// `openssl rand -hex 32` and `openssl rand -base64 32` print; anything else is refused
/// rather than guessed at. Problems name keys, never values.
public enum SecretStrength {
    public static let minimumBytes = 32

    /// The built-in keys: fine for `make run` on loopback, public everywhere else.
    public static let developmentCursorKey = "braid-local-development-key"
    public static let developmentImpressionKey = "braid-local-development-impression-key"

    /// Values refused outright (compared case-insensitively): the development keys and every
    /// placeholder the repository ships (Deploy/, README.md; BraidDeployTests checks that each
    /// one found there is refused).
    static let denied: Set<String> = [
        developmentCursorKey, developmentImpressionKey, "change-me", "changeme", "secret", "password", "token",
    ]

    /// Fragments of placeholders (case-insensitive): a value containing one was written by a
    /// person as a reminder, not drawn at random.
    static let deniedFragments = ["change-me", "change_me", "changeme", "replace-me", "replaceme", "placeholder", "example", "<", ">"]

    public enum Problem: Sendable, Equatable, CustomStringConvertible {
        case missing
        case denied
        case notEncoded
        case tooShort(bytes: Int)
        case sameAs(String)

        public var description: String {
            switch self {
            case .missing: "is not set"
            case .denied: "is a published development key or a placeholder"
            case .notEncoded: "is neither hex nor base64 (generate one with `openssl rand -base64 32`)"
            case .tooShort(let bytes): "holds \(bytes) bytes once decoded; at least \(SecretStrength.minimumBytes) are required"
            case .sameAs(let other): "is the same secret as \(other)"
            }
        }
    }

    /// The problems of each named secret, in the order given; secrets without one are left out.
    public static func problems(_ secrets: [(key: String, value: String)]) -> [(key: String, problem: Problem)] {
        var found: [(key: String, problem: Problem)] = []
        var seen: [(key: String, bytes: [UInt8])] = []
        for (key, value) in secrets {
            if let problem = problem(value) {
                found.append((key, problem))
                continue
            }
            let bytes = decoded(value) ?? Array(value.utf8)
            if let earlier = seen.first(where: { $0.bytes == bytes }) {
                found.append((key, .sameAs(earlier.key)))
            }
            seen.append((key, bytes))
        }
        return found
    }

    /// What is wrong with one secret on its own, or nil.
    public static func problem(_ value: String) -> Problem? {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return .missing }
        let lowered = trimmed.lowercased()
        if denied.contains(lowered) || deniedFragments.contains(where: { lowered.contains($0) }) { return .denied }
        guard let bytes = decoded(trimmed) else { return .notEncoded }
        guard bytes.count >= minimumBytes else { return .tooShort(bytes: bytes.count) }
        return nil
    }

    /// The bytes a secret stands for: hex when it is hex (two digits a byte), else base64 in
    /// either alphabet with optional padding; nil when it is neither.
    public static func decoded(_ value: String) -> [UInt8]? {
        let characters = Array(value.utf8)
        if characters.count % 2 == 0, let bytes = hex(characters) { return bytes }
        return base64(characters)
    }

    static func hex(_ characters: [UInt8]) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(characters.count / 2)
        var index = 0
        while index + 1 < characters.count {
            guard let high = hexDigit(characters[index]), let low = hexDigit(characters[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    static func hexDigit(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    static func base64(_ characters: [UInt8]) -> [UInt8]? {
        var body = characters[...]
        var padding = 0
        while body.last == UInt8(ascii: "="), padding < 2 {
            body = body.dropLast()
            padding += 1
        }
        guard !body.isEmpty, body.count % 4 != 1, padding == 0 || (body.count + padding) % 4 == 0 else { return nil }
        var bytes: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for character in body {
            guard let value = base64Digit(character) else { return nil }
            buffer = buffer << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
                buffer &= (1 << UInt32(bits)) - 1
            }
        }
        return bytes
    }

    static func base64Digit(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"), UInt8(ascii: "-"): 62
        case UInt8(ascii: "/"), UInt8(ascii: "_"): 63
        default: nil
        }
    }
}
