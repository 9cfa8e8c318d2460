import BraidCore
import Crypto

/// The pseudonymous key of whoever an impression was shown to, carried by impression ids of
/// format version 3: the first 8 bytes of an HMAC-SHA256 of the verified user's id, or of the
/// client's `session` when no user was verified, under a secret only the gateways hold
/// (derived from `gateway.impression_key`, ``ImpressionCodec/userKey(user:session:)``). The
/// same user always gets the same key, so events can be grouped per user (the experiment
/// planner fits sessions per user) without the id itself leaving the gateway, and a verified
/// caller can be checked against the key (evidence is bound to its caller).
///
/// 64 bits: two users share a key with probability about n²/2⁶⁵, under one in a million for
/// six million users.
public struct UserKey: Sendable, Hashable, CustomStringConvertible {
    /// What the key was computed from.
    public enum Kind: UInt8, Sendable, Hashable {
        /// Neither a verified user nor a session: nothing ties the impression to anyone.
        case nobody = 0
        /// The `session` the client named (unverified: the client chooses it).
        case session = 1
        /// A user verified by `identity.mode` jwt or proxy.
        case user = 2

        public var name: String {
            switch self {
            case .nobody: "none"
            case .session: "session"
            case .user: "user"
            }
        }
    }

    public var kind: Kind
    public var value: UInt64

    public init(kind: Kind, value: UInt64) {
        self.kind = kind
        self.value = kind == .nobody ? 0 : value
    }

    /// Neither a user nor a session.
    public static let nobody = UserKey(kind: .nobody, value: 0)

    /// 16 hex digits, as events carry it.
    public var hex: String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    public var description: String { "\(kind.name):\(hex)" }

    /// The key of a verified user, or else of a session, or ``nobody``.
    static func make(user: String?, session: String?, secret: Secret) -> UserKey {
        if let user { return UserKey(kind: .user, value: hash(.user, user, secret: secret)) }
        if let session { return UserKey(kind: .session, value: hash(.session, session, secret: secret)) }
        return .nobody
    }

    /// The kind is hashed with the id, so a session named like a user never gets that user's key.
    private static func hash(_ kind: Kind, _ id: String, secret: Secret) -> UInt64 {
        let mac = HMAC<SHA256>.authenticationCode(for: [kind.rawValue] + Array(id.utf8), using: secret.symmetricKey)
        return Array(mac).prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }
}
