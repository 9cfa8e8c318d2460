import DequeModule

/// The handed-out messages of one partition, and the offset that may be committed for it:
/// the lowest offset not finished yet (contiguous completion).
///
/// Messages of a partition are handed out in offset order but may finish in any order (the
/// worker runs different keys of one partition concurrently). Committing the highest
/// finished offset would skip an unfinished lower one after a crash; committing only the
/// contiguous prefix redelivers what was unfinished and never skips. Pure state: the buffer
/// keeps one per assigned partition under its lock.
package struct OffsetTracker: Sendable {
    package enum State: Sendable, Equatable {
        case inFlight
        case finished
        /// Given up without finishing (shutdown, revocation): never counts as done, so the
        /// commit position stays below it and the next owner gets it again.
        case abandoned
    }

    /// Handed-out offsets from the lowest one not finished, in increasing order.
    private var entries = Deque<(offset: Int64, state: State)>()
    /// Handed out and neither finished nor abandoned: what a revocation waits for.
    package private(set) var inFlight = 0
    /// The next offset to consume once everything below it is finished: what to store.
    package private(set) var position: Int64?

    package init() {}

    /// Handed-out entries not yet below ``position`` (in flight, abandoned, or finished above a gap).
    package var pending: Int { entries.count }

    /// A message of `offset` was handed out. Offsets of one partition arrive increasing.
    package mutating func handedOut(_ offset: Int64) {
        precondition(entries.last.map { $0.offset < offset } ?? true, "offsets of a partition are handed out in order")
        entries.append((offset, .inFlight))
        inFlight += 1
    }

    /// Marks `offset` finished; returns the new ``position`` when it advanced (then store it).
    package mutating func finished(_ offset: Int64) -> Int64? {
        guard settle(offset, as: .finished) else { return nil }
        var advanced: Int64?
        while let first = entries.first, first.state == .finished {
            entries.removeFirst()
            advanced = first.offset + 1
        }
        guard var next = advanced else { return nil }
        // Offsets may have gaps (compaction, transaction markers): the lowest unfinished one
        // is the exact position.
        if let first = entries.first { next = first.offset }
        position = next
        return next
    }

    /// Marks `offset` abandoned: no longer in flight, never finished.
    package mutating func abandoned(_ offset: Int64) {
        _ = settle(offset, as: .abandoned)
    }

    /// The state of a handed-out offset not yet below ``position``.
    package func state(of offset: Int64) -> State? {
        index(of: offset).map { entries[$0].state }
    }

    private mutating func settle(_ offset: Int64, as state: State) -> Bool {
        guard let index = index(of: offset), entries[index].state == .inFlight else { return false }
        entries[index].state = state
        inFlight -= 1
        return true
    }

    /// Binary search: entries are sorted by offset.
    private func index(of offset: Int64) -> Int? {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].offset < offset { low = middle + 1 } else { high = middle }
        }
        return low < entries.count && entries[low].offset == offset ? low : nil
    }
}
