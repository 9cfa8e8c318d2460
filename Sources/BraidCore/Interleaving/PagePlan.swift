/// One slot of the interleaved list: global position, team, and index within that team's
/// ranking (for A: within A with B's placed documents excluded).
public struct PlannedSlot: Sendable, Hashable, Codable {
    public var position: Int
    public var team: Team
    public var index: Int

    public init(position: Int, team: Team, index: Int) {
        self.position = position
        self.team = team
        self.index = index
    }
}

/// What a page (offset, size) needs: its slots, the one contiguous range of A to ask the
/// live backend for, and the one contiguous slice of B.
public struct PagePlan: Sendable, Hashable {
    public var slots: [PlannedSlot]
    /// Indices into A (`from`, `size` for the live backend).
    public var aRange: Range<Int>
    /// Indices into B's placed documents.
    public var bRange: Range<Int>
    /// Length of the whole list (T + m) when the live total T is known; nil while A is
    /// treated as unbounded.
    public var end: Int?

    public init(slots: [PlannedSlot], aRange: Range<Int>, bRange: Range<Int>, end: Int?) {
        self.slots = slots
        self.aRange = aRange
        self.bRange = bRange
        self.end = end
    }
}
