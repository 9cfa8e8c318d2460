/// Plans pages of a multileaved list (see ``MultileaveDraft`` for the sequential definition).
///
/// Cached pick c sits at position `c + min(T, liveBefore(c))`, which grows with c, so the
/// cached picks before any position are one binary search away, and every other position is
/// the live ranking's, at index `position − cached picks before it`. A page therefore costs
/// O(log M + page size) at any offset, needs one contiguous range of the live ranking, and any
/// page of a session can be planned alone with the same result as walking from the top.
public struct MultileavePlanner: Sendable {
    public let draft: MultileaveDraft
    /// T: the live ranking's total with placed cached documents excluded; nil when unknown.
    public let liveTotal: Int?

    public init(draft: MultileaveDraft, liveTotal: Int?) {
        self.draft = draft
        self.liveTotal = liveTotal.map { max(0, $0) }
    }

    /// Length of the list, T + M, when T is known.
    public var end: Int? { liveTotal.map { $0 + draft.placedCount } }

    /// Positions of the full drafting rounds: from `start`, every team picking once per round,
    /// until the first round some team cannot pick in (a cached ranking ran out, or the live
    /// one: round r has a live pick while `start + r < T`). Clicks elsewhere are not evidence:
    /// slots before `start` and after a team ran out belong to no comparison.
    public var creditWindow: Range<Int> {
        let start = draft.configuration.start
        let liveRounds = liveTotal.map { max(0, $0 - start) } ?? Int.max
        let rounds = min(draft.fullCachedRounds, liveRounds)
        return start..<(start + rounds * draft.teamCount)
    }

    /// Position of cached pick c.
    func position(ofPick c: Int) -> Int {
        c + min(liveTotal ?? Int.max, draft.picks[c].liveBefore)
    }

    /// Cached picks among positions 0..<p.
    func cachedCount(before p: Int) -> Int {
        var low = 0
        var high = draft.picks.count
        while low < high {
            let middle = (low + high) / 2
            if position(ofPick: middle) < p { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The slot at global position p, or nil outside the list.
    public func slot(at p: Int) -> MultileaveSlot? {
        guard p >= 0, p < end ?? Int.max else { return nil }
        let before = cachedCount(before: p)
        if before < draft.picks.count, position(ofPick: before) == p {
            let pick = draft.picks[before]
            return MultileaveSlot(position: p, team: pick.team, index: pick.rank)
        }
        return MultileaveSlot(position: p, team: 0, index: p - before)
    }

    /// Live and cached slots among positions 0..<p (p clamped to the end).
    public func counts(before p: Int) -> (live: Int, cached: Int) {
        let p = min(max(0, p), end ?? Int.max)
        let cached = cachedCount(before: p)
        return (p - cached, cached)
    }

    /// The plan of the page of `size` slots starting at global position `offset`.
    public func plan(offset: Int, size: Int) -> MultileavePagePlan {
        let offset = max(0, offset)
        let upper = min(offset + max(0, size), end ?? Int.max)
        var slots: [MultileaveSlot] = []
        slots.reserveCapacity(max(0, upper - offset))
        let firstPick = cachedCount(before: offset)
        var pick = firstPick
        var live = 0
        var p = offset
        while p < upper {
            if pick < draft.picks.count, position(ofPick: pick) == p {
                slots.append(MultileaveSlot(position: p, team: draft.picks[pick].team, index: draft.picks[pick].rank))
                pick += 1
            } else {
                slots.append(MultileaveSlot(position: p, team: 0, index: p - pick))
                live += 1
            }
            p += 1
        }
        let liveFrom = offset - firstPick
        return MultileavePagePlan(slots: slots, liveRange: liveFrom..<(liveFrom + live), end: end, creditWindow: creditWindow)
    }
}
