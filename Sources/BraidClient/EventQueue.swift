import DequeModule

/// The events an ``EventReporter`` holds, oldest first, at most `capacity` of them. Appending
/// to a full queue drops the oldest. A batch is read without removing it, so events stay held
/// (and count against the capacity) until the gateway has taken them; each event has a
/// sequence number, so acknowledging a batch removes exactly what is left of it even when some
/// of it was dropped meanwhile.
struct EventQueue: Sendable {
    struct Batch: Sendable, Equatable {
        var events: [BraidEvent]
        /// Sequence numbers of `events`, ascending.
        var sequences: [UInt64]
    }

    let capacity: Int
    private var held: Deque<(sequence: UInt64, event: BraidEvent)> = []
    private var next: UInt64 = 0
    /// Events dropped because the queue was full, since it was made.
    private(set) var dropped = 0

    init(capacity: Int) {
        precondition(capacity > 0, "an event queue holds at least one event")
        self.capacity = capacity
    }

    var count: Int { held.count }
    var isEmpty: Bool { held.isEmpty }

    /// O(1): appends, dropping the oldest event when full.
    mutating func append(_ event: BraidEvent) {
        if held.count == capacity {
            held.removeFirst()
            dropped += 1
        }
        held.append((next, event))
        next += 1
    }

    /// The oldest `limit` events, still held.
    func batch(limit: Int) -> Batch? {
        guard !held.isEmpty else { return nil }
        let prefix = held.prefix(limit)
        return Batch(events: prefix.map(\.event), sequences: prefix.map(\.sequence))
    }

    /// Removes what is still held of `batch`: new events go to the back and drops come off the
    /// front, so that is a prefix of the queue.
    mutating func acknowledge(_ batch: Batch) {
        guard let last = batch.sequences.last else { return }
        while let first = held.first, first.sequence <= last { held.removeFirst() }
    }

    /// Removes one event (one the gateway refused), if it is still held.
    mutating func remove(sequence: UInt64) {
        if let index = held.firstIndex(where: { $0.sequence == sequence }) { held.remove(at: index) }
    }
}
