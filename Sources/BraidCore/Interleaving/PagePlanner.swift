/// Plans pages of an interleaved list in closed form.
///
/// The sequential definition (walk p = 0, 1, 2, …): if A is exhausted the slot is B while
/// B lasts; else if all m = min(|B|, max_docs) B documents are placed, A; else if p < start,
/// A; else the window's team (pattern or team-draft coin). Each team's index counts its
/// earlier slots; the list ends after T + m slots. This type computes any slot and the
/// counts before any position in O(1), so a page costs O(page size) at any offset: page
/// 10⁹ is as cheap as page 1, and any page of a session can be planned alone.
public struct PagePlanner: Sendable {
    public let configuration: InterleavingConfiguration
    /// m: B documents placed.
    public let placed: Int
    /// T: A's total with B's placed documents excluded; nil when not (yet) known.
    public let aTotal: Int?
    private let schedule: WindowSchedule
    /// Where A runs out (the first position whose natural A count reaches T).
    private let aExhaustedAt: Int?

    public init(configuration: InterleavingConfiguration, bCount: Int, aTotal: Int?, seed: UInt64 = 0) {
        self.configuration = configuration
        self.placed = configuration.placedCount(bCount: bCount)
        self.aTotal = aTotal.map { max(0, $0) }
        self.schedule = WindowSchedule(configuration, seed: seed)
        self.aExhaustedAt = self.aTotal.map { [schedule, placed] total in
            Self.exhaustionPosition(total: total, start: configuration.start, placed: placed, schedule: schedule)
        }
    }

    /// Length of the list, T + m, when T is known.
    public var end: Int? { aTotal.map { $0 + placed } }

    /// The slot at global position p, or nil past the end.
    public func slot(at p: Int) -> PlannedSlot? {
        guard p >= 0 else { return nil }
        if let end, p >= end { return nil }
        if let aExhaustedAt, p >= aExhaustedAt {
            return PlannedSlot(position: p, team: .b, index: naturalB(before: aExhaustedAt) + (p - aExhaustedAt))
        }
        let start = configuration.start
        if p < start { return PlannedSlot(position: p, team: .a, index: p) }
        let bBefore = schedule.bCount(before: p - start)
        if bBefore >= placed { return PlannedSlot(position: p, team: .a, index: p - placed) }
        switch schedule.team(at: p - start) {
        case .a: return PlannedSlot(position: p, team: .a, index: p - bBefore)
        case .b: return PlannedSlot(position: p, team: .b, index: bBefore)
        }
    }

    /// A and B slots among positions 0..<p (p clamped to the end).
    public func counts(before p: Int) -> (a: Int, b: Int) {
        let p = min(max(0, p), end ?? Int.max)
        if let aExhaustedAt, let aTotal, p > aExhaustedAt {
            return (aTotal, min(naturalB(before: aExhaustedAt) + (p - aExhaustedAt), placed))
        }
        let b = naturalB(before: p)
        return (p - b, b)
    }

    /// The plan of the page of `size` slots starting at global position `offset`.
    public func plan(offset: Int, size: Int) -> PagePlan {
        let offset = max(0, offset)
        let upper = min(offset + max(0, size), end ?? Int.max)
        var slots: [PlannedSlot] = []
        slots.reserveCapacity(max(0, upper - offset))
        var aCount = 0
        var position = offset
        while position < upper, let slot = slot(at: position) {
            slots.append(slot)
            if slot.team == .a { aCount += 1 }
            position += 1
        }
        let before = counts(before: offset)
        return PagePlan(
            slots: slots,
            aRange: before.a..<(before.a + aCount),
            bRange: before.b..<(before.b + slots.count - aCount),
            end: end)
    }

    /// B slots before p as if A never ran out.
    private func naturalB(before p: Int) -> Int {
        p <= configuration.start ? 0 : min(schedule.bCount(before: p - configuration.start), placed)
    }

    private static func exhaustionPosition(total: Int, start: Int, placed: Int, schedule: WindowSchedule) -> Int {
        if total <= start { return total }
        let need = total - start
        // Window position just after the need-th A slot, if B's cap is not reached first.
        let k = schedule.position(ofSlot: need - 1, of: .a) + 1
        if schedule.bCount(before: k) <= placed { return start + k }
        // All m B documents come first; after them every slot is A.
        return total + placed
    }
}
