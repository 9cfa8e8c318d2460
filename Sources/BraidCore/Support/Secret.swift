import Crypto

/// Key material or a credential: used, compared in constant time, never printed.
///
/// Its description, debug description and mirror all read `<redacted>`, so string
/// interpolation, `dump`, and loggers that describe a whole value (swift-service-lifecycle
/// prints every service it starts at debug level, and a service holds its codecs) see no
/// byte of it. Keys derived from a secret are secrets too (``derived(label:)``).
public struct Secret: Sendable {
    private let storage: [UInt8]

    public init(_ text: String) {
        storage = Array(text.utf8)
    }

    public init(bytes: some Sequence<UInt8>) {
        storage = Array(bytes)
    }

    /// The empty secret: "not set".
    public static let none = Secret(bytes: [])

    public var isEmpty: Bool { storage.isEmpty }
    public var count: Int { storage.count }

    /// The bytes, for the call that uses them (an HMAC key, a header). Keep them in no
    /// property of a type that prints itself.
    public var bytes: [UInt8] { storage }

    /// The secret as text (secrets read from configuration are UTF-8), for a credential sent
    /// as text: an `Authorization` header, a password in a handshake.
    public var text: String { String(decoding: storage, as: UTF8.self) }

    /// An HMAC-SHA256 key over these bytes.
    public var symmetricKey: SymmetricKey { SymmetricKey(data: storage) }

    /// HMAC-SHA256(self, label): a key of its own for each use of one configured secret, so
    /// that, say, an impression id can never pass as a cursor.
    public func derived(label: String) -> Secret {
        Secret(bytes: HMAC<SHA256>.authenticationCode(for: Array(label.utf8), using: symmetricKey))
    }

    /// Constant time in the length of `other`: how much of a guess was right does not show in
    /// how long the comparison takes.
    public func matches(_ other: some Sequence<UInt8>) -> Bool {
        let offered = Array(other)
        var difference: UInt8 = offered.count == storage.count ? 0 : 1
        for (index, byte) in offered.enumerated() {
            difference |= byte ^ (storage.isEmpty ? 0 : storage[index % storage.count])
        }
        return difference == 0
    }
}

extension Secret: Equatable {
    public static func == (lhs: Secret, rhs: Secret) -> Bool { lhs.matches(rhs.storage) }
}

extension Secret: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

extension Secret: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) {
        self.init(value)
    }
}

/// A plain string in configuration files and JSON, as people write secrets.
extension Secret: Codable {
    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}

/// A type that holds key material, directly or derived, and so describes itself by its name
/// alone: in interpolation, in a debugger's `po`, and to `dump` and `Mirror` (no children).
public protocol RedactedDescription: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {}

extension RedactedDescription {
    public var description: String { "\(Self.self)(<redacted>)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
