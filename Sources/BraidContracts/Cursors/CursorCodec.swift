import BraidCore
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
///
/// Search cursors, which carry their walk (``WalkState``), use format version 3: the 52 bytes
/// (version 3), the number of cached rankings (1, may be 0) and 9 bytes per ranking as in
/// version 2, then the walk: mode (1) · flags (1; bit 0: exhausted total, bit 1: first page's
/// ids) · walk id (8) · page (varint) · A base (varint) · [exhausted total (varint)] · [ids
/// (``IDListCoding``)], then the MAC. Without ids 81 bytes, 108 characters; a cursor is never
/// longer than ``maxTextLength`` characters (page 1 leaves its ids out when they would not fit).
/// Versions 1 and 2 are read too, so cursors an older gateway issued keep working during a
/// rolling deploy; cursors other than search cursors (no walk) are written in them.
public struct CursorCodec: Sendable, RedactedDescription {
    public static let formatVersion: UInt8 = 1
    static let multileaveFormatVersion: UInt8 = 2
    static let walkFormatVersion: UInt8 = 3
    static let bodyLength = 52
    static let macLength = 16
    static let totalLength = bodyLength + macLength
    /// Bytes of a version 3 cursor beyond ``totalLength`` at least (no ranking, no ids, small numbers).
    static let minimumWalkExtra = 13
    /// Longest cursor text read or written: fits a URL with room to spare.
    public static let maxTextLength = 1_024

    private let key: Secret
    private let signer: KeyedMAC
    private let retired: RetiredKey?

    /// - Parameters:
    ///   - key: signs new cursors and verifies them.
    ///   - retired: the key before the last rotation, still accepted until its time.
    public init(key: Secret, retired: RetiredKey? = nil) {
        self.key = key
        self.signer = KeyedMAC(key)
        self.retired = retired
    }

    public init(key: some DataProtocol, retired: RetiredKey? = nil) {
        self.init(key: Secret(bytes: key), retired: retired)
    }

    /// A search cursor: format version 3 when it carries a walk, else 1 (two rankings) or 2
    /// (multileave).
    public func encode(_ cursor: SearchCursor) -> String {
        let versions: [Int64?]
        let single: Int64?
        switch cursor.snapshots {
        case .single(let version): (single, versions) = (version, [])
        case .multileave(let list): (single, versions) = (nil, Array(list.prefix(MultileaveConfiguration.maxCachedRankings)))
        }
        return encode(Fields(
            snapshotVersion: single, offset: cursor.offset, pageSize: cursor.pageSize, configurationHash: cursor.configurationHash,
            seed: cursor.seed, queryHash: cursor.queryHash, expiresAt: cursor.expiresAt, multileaveVersions: versions, walk: cursor.walk))
    }

    /// A component cursor: format version 1, with no snapshot, configuration or seed, and the
    /// binding where a search cursor has its query's hash.
    public func encode(_ cursor: ComponentCursor) -> String {
        encode(Fields(
            snapshotVersion: nil, offset: cursor.offset, pageSize: cursor.pageSize, configurationHash: 0, seed: 0,
            queryHash: cursor.binding, expiresAt: cursor.expiresAt, multileaveVersions: [], walk: nil))
    }

    /// Decodes and verifies a search cursor, of any format version this code ever wrote; never
    /// traps, whatever the input.
    public func decodeSearch(_ text: String, now: Date = Date()) throws(CursorError) -> SearchCursor {
        let fields = try decode(text, now: now)
        return SearchCursor(
            snapshots: fields.format == Self.multileaveFormatVersion || !fields.multileaveVersions.isEmpty
                ? .multileave(fields.multileaveVersions) : .single(fields.snapshotVersion),
            offset: fields.offset, pageSize: fields.pageSize, configurationHash: fields.configurationHash, seed: fields.seed,
            queryHash: fields.queryHash, expiresAt: fields.expiresAt, walk: fields.walk)
    }

    /// Decodes and verifies a component cursor; a valid search cursor is ``CursorError/otherList``.
    public func decodeComponent(_ text: String, now: Date = Date()) throws(CursorError) -> ComponentCursor {
        let fields = try decode(text, now: now)
        guard fields.format == Self.formatVersion, fields.snapshotVersion == nil, fields.configurationHash == 0, fields.seed == 0 else {
            throw .otherList
        }
        return ComponentCursor(offset: fields.offset, pageSize: fields.pageSize, binding: fields.queryHash, expiresAt: fields.expiresAt)
    }

    /// Every field of the wire layout, whichever list the cursor is of.
    struct Fields: Sendable, Hashable {
        var format: UInt8 = 0
        var snapshotVersion: Int64?
        var offset: Int
        var pageSize: Int
        var configurationHash: UInt64
        var seed: UInt64
        var queryHash: UInt64
        var expiresAt: Int64
        var multileaveVersions: [Int64?]
        var walk: WalkState?
    }

    func encode(_ cursor: Fields) -> String {
        var body: [UInt8] = []
        body.reserveCapacity(Self.totalLength + 32)
        let versions = cursor.multileaveVersions.prefix(MultileaveConfiguration.maxCachedRankings)
        let format = cursor.walk != nil ? Self.walkFormatVersion : versions.isEmpty ? Self.formatVersion : Self.multileaveFormatVersion
        body.append(format)
        body.append(cursor.snapshotVersion == nil ? 0 : 1)
        append(UInt64(bitPattern: cursor.snapshotVersion ?? 0), to: &body)
        append(UInt64(max(0, cursor.offset)), to: &body)
        body.append(UInt8(truncatingIfNeeded: cursor.pageSize >> 8))
        body.append(UInt8(truncatingIfNeeded: cursor.pageSize))
        append(cursor.configurationHash, to: &body)
        append(cursor.seed, to: &body)
        append(UInt64(bitPattern: cursor.expiresAt), to: &body)
        append(cursor.queryHash, to: &body)
        if format != Self.formatVersion {
            body.append(UInt8(versions.count))
            for version in versions {
                body.append(version == nil ? 0 : 1)
                append(UInt64(bitPattern: version ?? 0), to: &body)
            }
        }
        if let walk = cursor.walk {
            body.append(walk.mode.rawValue)
            body.append((walk.exhaustedTotal == nil ? 0 : 1) | (walk.firstPageIDs == nil ? 0 : 2))
            append(walk.id, to: &body)
            Varint.append(UInt64(max(0, walk.page)), to: &body)
            Varint.append(UInt64(max(0, walk.aBase)), to: &body)
            if let total = walk.exhaustedTotal { Varint.append(UInt64(max(0, total)), to: &body) }
            if let ids = walk.firstPageIDs { IDListCoding.encode(ids, into: &body) }
        }
        body.append(contentsOf: signer.code(for: body, length: Self.macLength))
        return Base64URL.encode(body)
    }

    /// Decodes and verifies the fields of a cursor; never traps, whatever the input.
    func decode(_ text: String, now: Date = Date()) throws(CursorError) -> Fields {
        guard text.utf8.count <= Self.maxTextLength, let bytes = Base64URL.decode(text), bytes.count >= Self.totalLength else {
            throw .malformed
        }
        // Only lengths some format has: 68 bytes (1), 68 + 1 + 9 per cached ranking (2; 1–4), or
        // at least 68 + 13 (3).
        let extra = bytes.count - Self.totalLength
        guard extra == 0 || extra == 10 || extra >= Self.minimumWalkExtra else { throw .malformed }
        let bodyLength = bytes.count - Self.macLength
        let body = Array(bytes[0..<bodyLength])
        let signature = Array(bytes[bodyLength...])
        guard constantTimeEqual(signer.code(for: body, length: Self.macLength), signature) || signedByRetiredKey(body, signature, now: now) else {
            throw .badSignature
        }
        let format = body[0]
        guard [Self.formatVersion, Self.multileaveFormatVersion, Self.walkFormatVersion].contains(format) else {
            throw .unsupportedVersion(format)
        }
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
        var walk: WalkState?
        switch format {
        case Self.multileaveFormatVersion:
            guard body.count > Self.bodyLength else { throw .malformed }
            let count = Int(reader.byte())
            guard (1...MultileaveConfiguration.maxCachedRankings).contains(count), body.count == Self.bodyLength + 1 + 9 * count else {
                throw .malformed
            }
            multileaveVersions = try Self.versions(&reader, count: count)
        case Self.walkFormatVersion:
            guard body.count > Self.bodyLength else { throw .malformed }
            let count = Int(reader.byte())
            guard count <= MultileaveConfiguration.maxCachedRankings, body.count >= Self.bodyLength + 1 + 9 * count + 10 else {
                throw .malformed
            }
            multileaveVersions = try Self.versions(&reader, count: count)
            walk = try Self.walk(body, at: reader.index)
        default:
            guard body.count == Self.bodyLength else { throw .malformed }
        }
        // A valid signature means we wrote it, but reject nonsense anyway rather than trust
        // that every past version of this code wrote only sane values, or that the key never
        // leaked: no page is ever larger than a request may ask for (`per_page`, a
        // component's `page_size`: ``PageSize``).
        guard flags & ~1 == 0, offset <= UInt64(Int32.max), PageSize.range.contains(Int(pageSize)) else { throw .malformed }
        guard Int64(now.timeIntervalSince1970) < expiresAt else { throw .expired }
        return Fields(
            format: format, snapshotVersion: flags & 1 == 1 ? snapshot : nil, offset: Int(offset), pageSize: pageSize,
            configurationHash: configurationHash, seed: seed, queryHash: queryHash, expiresAt: expiresAt,
            multileaveVersions: multileaveVersions, walk: walk)
    }

    private static func versions(_ reader: inout ByteReader, count: Int) throws(CursorError) -> [Int64?] {
        var versions: [Int64?] = []
        for _ in 0..<count {
            let has = reader.byte()
            let version = Int64(bitPattern: reader.uint64())
            guard has <= 1 else { throw .malformed }
            versions.append(has == 1 ? version : nil)
        }
        return versions
    }

    /// The walk part of a version 3 body, from `index` to its end (10 bytes or more are there).
    private static func walk(_ body: [UInt8], at start: Int) throws(CursorError) -> WalkState {
        var reader = ByteReader(bytes: body, index: start)
        guard let mode = WalkState.Mode(rawValue: reader.byte()) else { throw .malformed }
        let flags = reader.byte()
        guard flags & ~3 == 0, body.count - reader.index >= 8 else { throw .malformed }
        let id = reader.uint64()
        var index = reader.index
        func number() throws(CursorError) -> Int {
            guard let value = Varint.read(body, at: &index), value <= UInt64(Int32.max) else { throw .malformed }
            return Int(value)
        }
        let page = try number()
        let aBase = try number()
        let total = flags & 1 == 1 ? try number() : nil
        var ids: [String]?
        if flags & 2 == 2 {
            guard let decoded = IDListCoding.decode(body, at: &index) else { throw .malformed }
            ids = decoded
        }
        guard index == body.count, page >= 1 else { throw .malformed }
        return WalkState(mode: mode, id: id, page: page, aBase: aBase, exhaustedTotal: total, firstPageIDs: ids)
    }

    func mac(_ body: [UInt8], key: Secret) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: body, using: key.symmetricKey).prefix(Self.macLength))
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

/// Reads fixed-size fields; callers check the length first.
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
