/// Entries bounded by their bytes, kept by W-TinyLFU (Einziger, Friedman and Manes, "TinyLFU: A
/// Highly Efficient Cache Admission Policy", 2017; the design of Caffeine). Pure logic: no lock,
/// no clock, no metrics (``NearCache`` adds those).
///
/// New entries enter a small window LRU (1 % of the bytes). What the window pushes out is a
/// candidate for the main region, a segmented LRU: a probation segment, and a protected one (80 %
/// of the main region) that entries reach on their second use there. While the whole is over its
/// bound, the oldest candidate is compared with the victim, the least recently used entry of
/// probation: whichever ``FrequencySketch`` says was used more often lately stays, and a tie
/// keeps the victim. A scan of keys used once therefore passes through the window and is turned
/// away at the door, and entries used often stay; an entry that becomes popular gets in as soon
/// as it is used more often than what it would replace.
///
/// Every operation is O(1) (the eviction loop removes one entry per turn): the three segments are
/// intrusive doubly linked lists over one array of slots, found through one dictionary.
struct TinyLFUStore<Key: Hashable, Value> {
    enum Segment: Int { case window = 0, probation, protected }

    private struct Slot {
        var key: Key?
        var value: Value?
        var bytes = 0
        var segment = Segment.window
        var previous = -1
        var next = -1
        var isCandidate = false
    }

    private struct List {
        var head = -1
        var tail = -1
        var bytes = 0
    }

    /// Bound of the values' bytes, as callers weigh them.
    let capacity: Int
    let windowCapacity: Int
    let protectedCapacity: Int

    private var slots: [Slot] = []
    private var freeSlots: [Int] = []
    private var index: [Key: Int] = [:]
    private var lists = [List(), List(), List()]
    private var sketch: FrequencySketch
    /// Entries taken out to make room (window, probation or protected).
    private(set) var evictions = 0
    /// Candidates turned away because their victim was used at least as often.
    private(set) var rejections = 0

    /// - Parameter expectedEntryBytes: sizes the frequency sketch (four counters a row per entry
    ///   the bound can hold, as Caffeine's; 256 KiB for 64 MiB of 4 KiB entries), nothing else.
    init(capacity: Int, expectedEntryBytes: Int = 4096) {
        self.capacity = max(0, capacity)
        self.windowCapacity = max(1, self.capacity / 100)
        self.protectedCapacity = (self.capacity - windowCapacity) * 4 / 5
        let entries = self.capacity / max(1, expectedEntryBytes)
        // Aged by its sample size only (halvingSeconds 0): ten times its width in recordings.
        // Keys are hashed by Swift's per-process seeded hashing, not by the sketch's seed.
        self.sketch = FrequencySketch(width: min(1 << 20, max(256, 4 * entries)), halvingSeconds: 0)
    }

    var bytes: Int { lists[0].bytes + lists[1].bytes + lists[2].bytes }
    var count: Int { index.count }

    /// The segment an entry is in, if it is held (for tests of the policy).
    func segment(of key: Key) -> Segment? { index[key].map { slots[$0].segment } }

    /// The value, counting a use: it moves to the front of its segment, and from probation to
    /// protected.
    mutating func value(for key: Key) -> Value? {
        guard let slot = index[key] else { return nil }
        sketch.increment(hash: Self.hash(key))
        switch slots[slot].segment {
        case .window, .protected:
            moveToFront(slot, of: slots[slot].segment)
        case .probation:
            moveToFront(slot, of: .protected)
            // Protected over its share: its least recently used entries go back to probation.
            while lists[Segment.protected.rawValue].bytes > protectedCapacity, lists[Segment.protected.rawValue].tail != slot {
                moveToFront(lists[Segment.protected.rawValue].tail, of: .probation)
            }
        }
        return slots[slot].value
    }

    /// Stores a value (replacing the key's old one) and makes room. A value larger than the
    /// whole bound is not kept, and neither is the key's old value.
    mutating func insert(_ value: Value, bytes: Int, for key: Key) {
        guard bytes <= capacity else {
            if let slot = index[key] { remove(slot) }
            return
        }
        sketch.increment(hash: Self.hash(key))
        if let slot = index[key] {
            let segment = slots[slot].segment
            lists[segment.rawValue].bytes += bytes - slots[slot].bytes
            slots[slot].bytes = bytes
            slots[slot].value = value
            moveToFront(slot, of: segment)
        } else {
            let slot = allocate(Slot(key: key, value: value, bytes: bytes))
            index[key] = slot
            link(slot, atFrontOf: .window)
        }
        makeRoom()
    }

    private mutating func makeRoom() {
        // The window's overflow, oldest first, becomes the candidates at probation's front.
        var candidates: [Int] = []
        while lists[Segment.window.rawValue].bytes > windowCapacity {
            let oldest = lists[Segment.window.rawValue].tail
            moveToFront(oldest, of: .probation)
            slots[oldest].isCandidate = true
            candidates.append(oldest)
        }
        var next = 0
        while bytes > capacity {
            while next < candidates.count, slots[candidates[next]].key == nil || !slots[candidates[next]].isCandidate { next += 1 }
            let candidate = next < candidates.count ? candidates[next] : nil
            let victim = self.victim()
            switch (candidate, victim) {
            case (let candidate?, let victim?):
                if frequency(candidate) > frequency(victim) {
                    remove(victim)
                    evictions += 1
                } else {
                    remove(candidate)
                    rejections += 1
                }
            case (let candidate?, nil):
                remove(candidate)
                rejections += 1
            case (nil, let victim?):
                remove(victim)
                evictions += 1
            case (nil, nil):
                // Only the window is left: its oldest entries go.
                guard lists[Segment.window.rawValue].tail >= 0 else { return }
                remove(lists[Segment.window.rawValue].tail)
                evictions += 1
            }
        }
        for candidate in candidates where slots[candidate].key != nil { slots[candidate].isCandidate = false }
    }

    /// Probation's least recently used entry that is not a candidate; protected's when probation
    /// holds candidates only.
    private func victim() -> Int? {
        let probation = lists[Segment.probation.rawValue].tail
        if probation >= 0, !slots[probation].isCandidate { return probation }
        let protected = lists[Segment.protected.rawValue].tail
        return protected >= 0 ? protected : nil
    }

    private func frequency(_ slot: Int) -> Int {
        slots[slot].key.map { sketch.estimate(hash: Self.hash($0)) } ?? 0
    }

    /// Swift's hashing is seeded per process, so which keys share counters cannot be worked out
    /// from outside.
    private static func hash(_ key: Key) -> UInt64 { UInt64(bitPattern: Int64(key.hashValue)) }

    // MARK: Slots and lists

    private mutating func allocate(_ slot: Slot) -> Int {
        if let free = freeSlots.popLast() {
            slots[free] = slot
            return free
        }
        slots.append(slot)
        return slots.count - 1
    }

    private mutating func remove(_ slot: Int) {
        unlink(slot)
        if let key = slots[slot].key { index[key] = nil }
        slots[slot] = Slot()
        freeSlots.append(slot)
    }

    private mutating func moveToFront(_ slot: Int, of segment: Segment) {
        unlink(slot)
        link(slot, atFrontOf: segment)
    }

    private mutating func link(_ slot: Int, atFrontOf segment: Segment) {
        let list = segment.rawValue
        slots[slot].segment = segment
        slots[slot].previous = -1
        slots[slot].next = lists[list].head
        if lists[list].head >= 0 { slots[lists[list].head].previous = slot }
        lists[list].head = slot
        if lists[list].tail < 0 { lists[list].tail = slot }
        lists[list].bytes += slots[slot].bytes
    }

    private mutating func unlink(_ slot: Int) {
        let list = slots[slot].segment.rawValue
        let (previous, next) = (slots[slot].previous, slots[slot].next)
        if previous >= 0 { slots[previous].next = next } else { lists[list].head = next }
        if next >= 0 { slots[next].previous = previous } else { lists[list].tail = previous }
        lists[list].bytes -= slots[slot].bytes
        slots[slot].previous = -1
        slots[slot].next = -1
    }
}
