/// What one walk has shown of A, page by page: kept in Redis, where every gateway can read it,
/// so that any gateway can serve the walk's next page (or the same page again).
public struct WalkRecord: Sendable, Hashable {
    /// One page of the walk as first served.
    public struct Page: Sendable, Hashable {
        /// A's documents on the page, in the order of its A slots.
        public var ids: [String]
        /// A's total the page was planned with; nil for the walk's first page, which travels
        /// in its cursor and is never served again from the record.
        public var aTotal: Int?

        public init(ids: [String], aTotal: Int?) {
            self.ids = ids
            self.aTotal = aTotal
        }

        /// As stored: A's total + 1 (0: none) as a varint, then the ids (``IDListCoding``).
        public func encoded() -> [UInt8] {
            var bytes: [UInt8] = []
            Varint.append(aTotal.map { UInt64(max(0, $0)) + 1 } ?? 0, to: &bytes)
            IDListCoding.encode(ids, into: &bytes)
            return bytes
        }

        /// Nil when `bytes` are not a stored page.
        public init?(encoded bytes: [UInt8]) {
            var index = 0
            guard let total = Varint.read(bytes, at: &index), total <= UInt64(Int32.max),
                  let ids = IDListCoding.decode(bytes, at: &index), index == bytes.count
            else { return nil }
            self.init(ids: ids, aTotal: total == 0 ? nil : Int(total) - 1)
        }
    }

    /// Pages 1…n of the walk, in order.
    public var pages: [Page]
    /// Seconds since 1970 when the record expires: the expiry of the latest cursor of the walk.
    public var expiresAt: Int64

    public init(pages: [Page], expiresAt: Int64) {
        self.pages = pages
        self.expiresAt = expiresAt
    }

    /// What serving page `k` (1-based) of the walk takes.
    public enum Step: Sendable, Hashable {
        /// The page was served before (the same cursor again, or a retry): serve it again.
        case replay(Page)
        /// The page is new: A's documents the walk has shown so far, none of which it may show again.
        case extend(shown: [String])
        /// The record lacks pages before `k`: what the walk has shown is not known.
        case lost
    }

    public func step(forPage k: Int) -> Step {
        if k >= 1, k <= pages.count { return .replay(pages[k - 1]) }
        guard k == pages.count + 1 else { return .lost }
        return .extend(shown: pages.flatMap(\.ids))
    }
}
