import Crypto

/// HMAC-SHA256 under one key, keyed once: a signature then costs hashing its message, not
/// also setting up the key (a cursor or an impression id is signed on every page served).
///
/// Copying a keyed `HMAC` copies its hash states (they are values), so one keyed template
/// serves every thread. Its key states are key material: it prints as `<redacted>`.
public struct KeyedMAC: Sendable, RedactedDescription {
    private let keyed: HMAC<SHA256>

    public init(_ key: Secret) {
        keyed = HMAC<SHA256>(key: key.symmetricKey)
    }

    /// The first `length` bytes of the message's authentication code.
    public func code(for message: [UInt8], length: Int) -> [UInt8] {
        var mac = keyed
        mac.update(data: message)
        return Array(mac.finalize().prefix(length))
    }
}
