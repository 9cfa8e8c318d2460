/// Where a session stands in a search list, opaque to clients (``CursorCodec`` writes it).
///
/// It pins what page 1 was built from: the snapshot of each cached ranking, the interleaving
/// configuration (by hash), the team-draft seed and the query. Later pages are planned against
/// the same inputs even while snapshots refresh: no duplicates, no gaps.
public struct SearchCursor: Sendable, Hashable {
    /// The snapshot versions the session is pinned to.
    public enum Snapshots: Sendable, Hashable {
        /// A two-ranking session: B's version; nil when the session is live-only (no snapshot
        /// existed, or Redis was unreachable, when it began).
        case single(Int64?)
        /// A multileave session: each cached ranking's version in team order (team 1 first);
        /// nil where that ranking had no snapshot.
        case multileave([Int64?])
    }

    public var snapshots: Snapshots
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
    /// Where the walk stands (``WalkState``); nil in cursors of format versions 1 and 2 (which
    /// an older gateway may have issued during a rolling deploy): those are paged by offset.
    public var walk: WalkState?

    public init(
        snapshots: Snapshots, offset: Int, pageSize: Int, configurationHash: UInt64, seed: UInt64, queryHash: UInt64, expiresAt: Int64,
        walk: WalkState? = nil
    ) {
        self.snapshots = snapshots
        self.offset = offset
        self.pageSize = pageSize
        self.configurationHash = configurationHash
        self.seed = seed
        self.queryHash = queryHash
        self.expiresAt = expiresAt
        self.walk = walk
    }

    /// B's version of a two-ranking session (nil for a live-only one or a multileave one).
    public var snapshotVersion: Int64? {
        if case .single(let version) = snapshots { return version }
        return nil
    }

    /// The version pinned for cached ranking `team` (1-based) of a multileave session.
    public func snapshotVersion(ofTeam team: Int) -> Int64? {
        guard case .multileave(let versions) = snapshots, versions.indices.contains(team - 1) else { return nil }
        return versions[team - 1]
    }
}

/// Where a client is in the pages of one feed component: bound to that component, its user
/// and its tab search, so it cannot page another.
public struct ComponentCursor: Sendable, Hashable {
    /// Position of the next page's first item.
    public var offset: Int
    public var pageSize: Int
    /// A hash of the feed, the component, the user and the tab search.
    public var binding: UInt64
    /// Seconds since 1970 after which the cursor is refused.
    public var expiresAt: Int64

    public init(offset: Int, pageSize: Int, binding: UInt64, expiresAt: Int64) {
        self.offset = offset
        self.pageSize = pageSize
        self.binding = binding
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
    /// A valid cursor of another kind of list (a search cursor sent for a component's page).
    case otherList

    public var description: String {
        switch self {
        case .malformed: "the cursor is malformed"
        case .badSignature: "the cursor's signature is invalid"
        case .unsupportedVersion(let version): "cursor format version \(version) is not supported"
        case .expired: "the cursor has expired; start again from page 1"
        case .otherList: "the cursor belongs to another list"
        }
    }
}
