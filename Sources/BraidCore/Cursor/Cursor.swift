import Foundation

/// Where a client is in an interleaved list. Opaque to clients (see ``CursorCodec``).
///
/// It pins what page 1 was built from — the snapshot version of B, the interleaving
/// configuration (by hash), the team-draft seed and the query — so later pages are planned
/// against the same inputs even while snapshots refresh: no duplicates, no gaps.
public struct Cursor: Sendable, Hashable {
    /// Snapshot version of B; nil when the session is live-only (no snapshot existed, or
    /// Redis was unreachable when it began).
    public var snapshotVersion: Int64?
    /// Global position of the next page's first slot.
    public var offset: Int
    public var pageSize: Int
    /// ``InterleavingConfiguration/stableHash(ranking:)`` of what page 1 used.
    public var configurationHash: UInt64
    public var seed: UInt64
    /// Binds the cursor to one normalised query (``QueryNormalizer/hash(_:)``).
    public var queryHash: UInt64
    /// Seconds since 1970 after which the cursor is refused.
    public var expiresAt: Int64
    /// A multileave session: the snapshot version of each cached ranking, in team order (nil:
    /// that ranking had no snapshot). Empty for two-ranking interleaving.
    public var multileaveVersions: [Int64?]
    /// Search cursors: where the walk stands (``WalkState``). Nil in cursors of other lists, and
    /// in search cursors of format versions 1 and 2 (which an older gateway may have issued
    /// during a rolling deploy): those are paged by offset.
    public var walk: WalkState?

    public init(
        snapshotVersion: Int64?, offset: Int, pageSize: Int, configurationHash: UInt64, seed: UInt64,
        queryHash: UInt64, expiresAt: Int64, multileaveVersions: [Int64?] = [], walk: WalkState? = nil
    ) {
        self.walk = walk
        self.multileaveVersions = multileaveVersions
        self.snapshotVersion = snapshotVersion
        self.offset = offset
        self.pageSize = pageSize
        self.configurationHash = configurationHash
        self.seed = seed
        self.queryHash = queryHash
        self.expiresAt = expiresAt
    }
}

/// Why a cursor was refused; the gateway answers every case with a 400.
public enum CursorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not base64url, or not the length of any cursor.
    case malformed
    /// The signature does not match: forged, tampered, or signed with another key.
    case badSignature
    case unsupportedVersion(UInt8)
    case expired

    public var description: String {
        switch self {
        case .malformed: "the cursor is malformed"
        case .badSignature: "the cursor's signature is invalid"
        case .unsupportedVersion(let version): "cursor format version \(version) is not supported"
        case .expired: "the cursor has expired; start again from page 1"
        }
    }
}
