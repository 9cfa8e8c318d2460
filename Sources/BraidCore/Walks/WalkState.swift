/// What a cursor carries of its walk (the chain of pages linked by `next_cursor`): enough for
/// the next page to show no document of the walk twice and to skip none.
///
/// A walk's live side (A) is not paged by offset: each page takes the best documents of A that
/// the walk has not shown yet. What it has shown is kept in a walk record in Redis
/// (``WalkRecord``), except page 1's documents, which travel in page 1's cursor so that page 1
/// writes nothing.
public struct WalkState: Sendable, Hashable {
    /// How the pages of the walk are planned.
    public enum Mode: UInt8, Sendable, Hashable, CaseIterable {
        /// Offset paging (A's documents by position): walk records are turned off.
        case offset = 0
        /// From the walk's record: no document twice, none skipped.
        case recorded = 1
        /// The record is gone (Redis unreachable, expired or evicted): offset paging from here on.
        case lost = 2
        /// The record reached its size cap: offset paging from here on.
        case capped = 3

        /// The name of the mode in a page's `walk` field.
        public var name: String {
            switch self {
            case .offset: "offset"
            case .recorded: "exact"
            case .lost: "lost"
            case .capped: "capped"
            }
        }
    }

    public var mode: Mode
    /// Random; names the walk's record.
    public var id: UInt64
    /// 1-based index, within the walk, of the page this cursor asks for.
    public var page: Int
    /// A's documents before the walk's first page: 0 for a walk from page 1; for one begun with
    /// `page=k`, the A documents of pages 1…k−1, which each page of the walk still skips.
    public var aBase: Int
    /// A's total once A has run out on an earlier page: the rest of the list is B's documents
    /// only, placed by this total, and A is not asked again (a later page planned with a larger
    /// total would place B's documents by another layout and show some twice).
    public var exhaustedTotal: Int?
    /// The A documents of the walk's first page while no record holds them (page 2's cursor).
    public var firstPageIDs: [String]?

    public init(mode: Mode, id: UInt64, page: Int, aBase: Int = 0, exhaustedTotal: Int? = nil, firstPageIDs: [String]? = nil) {
        self.mode = mode
        self.id = id
        self.page = page
        self.aBase = aBase
        self.exhaustedTotal = exhaustedTotal
        self.firstPageIDs = firstPageIDs
    }

    /// The walk id as it appears in keys: 16 lowercase hex digits.
    public var idText: String {
        let digits = String(id, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
