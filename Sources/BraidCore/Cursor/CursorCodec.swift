import Crypto
import Foundation

/// Encodes cursors as compact, signed base64url strings and refuses anything else.
///
/// Layout (big-endian), 52 bytes, followed by the first 16 bytes of HMAC-SHA256 over them:
/// version (1) · flags (1; bit 0: has snapshot) · snapshot version (8) · offset (8) ·
/// page size (2) · configuration hash (8) · seed (8) · expiry (8) · query hash (8).
/// 68 bytes in all, 91 characters of base64url without padding.
public struct CursorCodec: Sendable {
    public static let formatVersion: UInt8 = 1
    static let bodyLength = 52
    static let macLength = 16
    static let totalLength = bodyLength + macLength

    private let key: [UInt8]
    private let retired: RetiredKey?

    /// - Parameters:
    ///   - key: signs new cursors and verifies them.
    ///   - retired: the key before the last rotation, still accepted until its time.
    public init(key: some DataProtocol, retired: RetiredKey? = nil) {
        self.key = Array(key)
        self.retired = retired
    }

    public func encode(_ cursor: Cursor) -> String {
        var body: [UInt8] = []
        body.reserveCapacity(Self.totalLength)
        body.append(Self.formatVersion)
        body.append(cursor.snapshotVersion == nil ? 0 : 1)
        append(UInt64(bitPattern: cursor.snapshotVersion ?? 0), to: &body)
        append(UInt64(max(0, cursor.offset)), to: &body)
        body.append(UInt8(truncatingIfNeeded: cursor.pageSize >> 8))
        body.append(UInt8(truncatingIfNeeded: cursor.pageSize))
        append(cursor.configurationHash, to: &body)
        append(cursor.seed, to: &body)
        append(UInt64(bitPattern: cursor.expiresAt), to: &body)
        append(cursor.queryHash, to: &body)
        body.append(contentsOf: mac(body, key: key))
        return Base64URL.encode(body)
    }

    /// Decodes and verifies a cursor; never traps, whatever the input.
    public func decode(_ text: String, now: Date = Date()) throws(CursorError) -> Cursor {
        guard text.utf8.count <= 128, let bytes = Base64URL.decode(text), bytes.count == Self.totalLength else {
            throw .malformed
        }
        let body = Array(bytes[0..<Self.bodyLength])
        let signature = Array(bytes[Self.bodyLength...])
        guard constantTimeEqual(mac(body, key: key), signature) || signedByRetiredKey(body, signature, now: now) else {
            throw .badSignature
        }
        guard body[0] == Self.formatVersion else { throw .unsupportedVersion(body[0]) }
        var reader = ByteReader(bytes: body, index: 1)
        let flags = reader.byte()
        let snapshot = Int64(bitPattern: reader.uint64())
        let offset = reader.uint64()
        let pageSize = Int(reader.byte()) << 8 | Int(reader.byte())
        let configurationHash = reader.uint64()
        let seed = reader.uint64()
        let expiresAt = Int64(bitPattern: reader.uint64())
        let queryHash = reader.uint64()
        // A valid signature means we wrote it, but reject nonsense anyway rather than trust
        // that every past version of this code wrote only sane values.
        guard flags & ~1 == 0, offset <= UInt64(Int32.max), pageSize >= 1 else { throw .malformed }
        guard Int64(now.timeIntervalSince1970) < expiresAt else { throw .expired }
        return Cursor(
            snapshotVersion: flags & 1 == 1 ? snapshot : nil, offset: Int(offset), pageSize: pageSize,
            configurationHash: configurationHash, seed: seed, queryHash: queryHash, expiresAt: expiresAt)
    }

    private func mac(_ body: [UInt8], key: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: key)).prefix(Self.macLength))
    }

    private func signedByRetiredKey(_ body: [UInt8], _ signature: [UInt8], now: Date) -> Bool {
        guard let retired, retired.isAccepted(at: now) else { return false }
        return constantTimeEqual(mac(body, key: retired.key), signature)
    }

    private func append(_ value: UInt64, to bytes: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    private func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return zip(lhs, rhs).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

private struct ByteReader {
    let bytes: [UInt8]
    var index: Int

    mutating func byte() -> UInt8 {
        defer { index += 1 }
        return bytes[index]
    }

    mutating func uint64() -> UInt64 {
        var value: UInt64 = 0
        for _ in 0..<8 { value = value << 8 | UInt64(byte()) }
        return value
    }
}

/// base64url without padding (RFC 4648 §5), strict on decode.
enum Base64URL {
    static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: String) -> [UInt8]? {
        guard text.utf8.allSatisfy({ byte in
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x5F
        }) else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard standard.utf8.count % 4 != 1 else { return nil }
        standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        return Data(base64Encoded: standard).map(Array.init)
    }
}
