import BraidContracts
import Synchronization

/// A stored component as the near-cache keeps it, with the ETags of the pages served from it.
///
/// Every client of a segment's content asks for the same first page: hashing its items again
/// for each of them would cost more than serving the bytes. A version's items never change,
/// so neither does a page's ETag.
final class CachedComponent: Sendable {
    let stored: StoredComponent
    private let etags = Mutex<[Range<Int>: String]>([:])
    /// Pages whose ETags are kept; others are hashed on each request (deep pages are rare).
    static let keptPages = 8

    init(_ stored: StoredComponent) {
        self.stored = stored
    }

    /// What the entry costs the near-cache's bound: the stored bytes, their offsets, and the
    /// kept ETags (32 hex characters and a range each, 128 bytes with their share of the table).
    var bytes: Int { stored.document.count + 8 * stored.offsets.count + Self.keptPages * 128 }

    /// The content hash of the items in `range` (``ComponentHash/content(ofJoinedItems:)``).
    func etag(of range: Range<Int>) -> String {
        if let etag = etags.withLock({ $0[range] }) { return etag }
        let etag = ComponentHash.content(ofJoinedItems: stored.joinedItems(range))
        etags.withLock { kept in
            if kept.count < Self.keptPages { kept[range] = etag }
        }
        return etag
    }
}
