import Crypto
import Foundation

/// Encodes cursors as compact, signed base64url strings and refuses anything else.
///
/// Layout (big-endian), 52 bytes, followed by the first 16 bytes of HMAC-SHA256 over them:
/// version (1) · flags (1; bit 0: has snapshot) · snapshot version (8) · offset (8) ·
/// page size (2) · configuration hash (8) · seed (8) · expiry (8) · query hash (8).
/// 68 bytes in all, 91 characters of base64url without padding.
///
/// Multileave sessions use format version 2: the same 52 bytes (version 2), then the number
/// of cached rankings (1) and per ranking a flag (1; 1: has snapshot) and its version (8), then
/// the MAC over all of it: at most 105 bytes, 140 characters.
public struct CursorCodec: Sendable {
    public static let formatVersion: UInt8 = 1
    static let multileaveFormatVersion: UInt8 = 2
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
        let versions = cursor.multileaveVersions.prefix(MultileaveConfiguration.maxCachedRankings)
        body.append(versions.isEmpty ? Self.formatVersion : Self.multileaveFormatVersion)
        body.append(cursor.snapshotVersion == nil ? 0 : 1)
        append(UInt64(bitPattern: cursor.snapshotVersion ?? 0), to: &body)
        append(UInt64(max(0, cursor.offset)), to: &body)
        body.append(UInt8(truncatingIfNeeded: cursor.pageSize >> 8))
        body.append(UInt8(truncatingIfNeeded: cursor.pageSize))
        append(cursor.configurationHash, to: &body)
        append(cursor.seed, to: &body)
        append(UInt64(bitPattern: cursor.expiresAt), to: &body)
        append(cursor.queryHash, to: &body)
        if !versions.isEmpty {
            body.append(UInt8(versions.count))
            for version in versions {
                body.append(version == nil ? 0 : 1)
                append(UInt64(bitPattern: version ?? 0), to: &body)
            }
        }
        body.append(contentsOf: mac(body, key: key))
        return Base64URL.encode(body)
    }

    /// Decodes and verifies a cursor; never traps, whatever the input.
    public func decode(_ text: String, now: Date = Date()) throws(CursorError) -> Cursor {
        guard text.utf8.count <= 160, let bytes = Base64URL.decode(text), bytes.count >= Self.totalLength else {
            throw .malformed
        }
        // Only the lengths of the two formats: 68 bytes, or 68 + 1 + 9 per cached ranking (1–4).
        let extra = bytes.count - Self.totalLength
        guard extra == 0 || (extra % 9 == 1 && (1...MultileaveConfiguration.maxCachedRankings).contains(extra / 9)) else {
            throw .malformed
        }
        let bodyLength = bytes.count - Self.macLength
        let body = Array(bytes[0..<bodyLength])
        let signature = Array(bytes[bodyLength...])
        guard constantTimeEqual(mac(body, key: key), signature) || signedByRetiredKey(body, signature, now: now) else {
            throw .badSignature
        }
        guard body[0] == Self.formatVersion || body[0] == Self.multileaveFormatVersion else { throw .unsupportedVersion(body[0]) }
        var reader = ByteReader(bytes: body, index: 1)
        let flags = reader.byte()
        let snapshot = Int64(bitPattern: reader.uint64())
        let offset = reader.uint64()
        let pageSize = Int(reader.byte()) << 8 | Int(reader.byte())
        let configurationHash = reader.uint64()
        let seed = reader.uint64()
        let expiresAt = Int64(bitPattern: reader.uint64())
        let queryHash = reader.uint64()
        var multileaveVersions: [Int64?] = []
        if body[0] == Self.multileaveFormatVersion {
            guard body.count > Self.bodyLength else { throw .malformed }
            let count = Int(reader.byte())
            guard (1...MultileaveConfiguration.maxCachedRankings).contains(count), body.count == Self.bodyLength + 1 + 9 * count else {
                throw .malformed
            }
            for _ in 0..<count {
                let has = reader.byte()
                let version = Int64(bitPattern: reader.uint64())
                guard has <= 1 else { throw .malformed }
                multileaveVersions.append(has == 1 ? version : nil)
            }
        } else {
            guard body.count == Self.bodyLength else { throw .malformed }
        }
        // A valid signature means we wrote it, but reject nonsense anyway rather than trust
        // that every past version of this code wrote only sane values.
        guard flags & ~1 == 0, offset <= UInt64(Int32.max), pageSize >= 1 else { throw .malformed }
        guard Int64(now.timeIntervalSince1970) < expiresAt else { throw .expired }
        return Cursor(
            snapshotVersion: flags & 1 == 1 ? snapshot : nil, offset: Int(offset), pageSize: pageSize,
            configurationHash: configurationHash, seed: seed, queryHash: queryHash, expiresAt: expiresAt,
            multileaveVersions: multileaveVersions)
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
