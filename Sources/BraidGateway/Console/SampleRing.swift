/// The last `capacity` samples of something measured over time, oldest first: what the
/// console draws as a chart. Bounded, so a process that runs for months keeps a fixed size.
public struct SampleRing<Element: Sendable>: Sendable {
    public let capacity: Int
    private var storage: [Element] = []
    /// Index in `storage` of the oldest sample once the ring is full.
    private var head = 0

    public init(capacity: Int) {
        precondition(capacity > 0, "a sample ring needs room for at least one sample")
        self.capacity = capacity
        storage.reserveCapacity(min(capacity, 1_024))
    }

    public var count: Int { storage.count }
    public var isEmpty: Bool { storage.isEmpty }

    /// Adds a sample; past `capacity` the oldest one is dropped.
    public mutating func append(_ element: Element) {
        if storage.count < capacity {
            storage.append(element)
        } else {
            storage[head] = element
            head = (head + 1) % capacity
        }
    }

    /// Every sample, oldest first.
    public var elements: [Element] { Array(storage[head...] + storage[..<head]) }

    /// The newest sample.
    public var last: Element? {
        guard !storage.isEmpty else { return nil }
        return storage[(head + storage.count - 1) % storage.count]
    }
}

/// A counter's rate between two readings: (later − earlier) / seconds between them. Nil when
/// the readings are not in time order, or the counter went back (a reset: no rate is honest).
public enum CounterRate {
    public static func perSecond(from earlier: (value: Int64, at: Double), to later: (value: Int64, at: Double)) -> Double? {
        let seconds = later.at - earlier.at
        guard seconds > 0, later.value >= earlier.value else { return nil }
        return Double(later.value - earlier.value) / seconds
    }
}
