/// One slot of a multileaved list.
public struct MultileaveSlot: Sendable, Hashable, Codable {
    public var position: Int
    /// 0: the live ranking; 1…k: the cached rankings, in the multileave's order.
    public var team: Int
    /// Live slots: the index into the live ranking with every placed cached document excluded
    /// (what the live backend is asked for). Cached slots: the document's rank in its own
    /// cached ranking (an index into that snapshot's documents).
    public var index: Int

    public init(position: Int, team: Int, index: Int) {
        self.position = position
        self.team = team
        self.index = index
    }
}

/// What a page (offset, size) of a multileaved list needs: its slots, the one contiguous
/// range of the live ranking to ask the backend for, and which of its positions are evidence.
public struct MultileavePagePlan: Sendable, Hashable {
    public var slots: [MultileaveSlot]
    /// Indices into the live ranking (`from`, `size`), placed cached documents excluded.
    public var liveRange: Range<Int>
    /// Length of the whole list (T + M) when the live total T is known.
    public var end: Int?
    /// Global positions of full drafting rounds (every team picked): the whole list's window,
    /// the same on every page. Only clicks there credit (``ImpressionToken/creditWindow``).
    public var creditWindow: Range<Int>

    public init(slots: [MultileaveSlot], liveRange: Range<Int>, end: Int?, creditWindow: Range<Int>) {
        self.slots = slots
        self.liveRange = liveRange
        self.end = end
        self.creditWindow = creditWindow
    }
}
