/// Where some documents stand in a query's relevance ranking (0-based, ties broken as a page's
/// are), read from one state of the source's data: ``SearchSource/relevancePositions(of:query:)``.
///
/// With it a caller that leaves those documents out of the ranking (a page's live side leaves
/// out B's placed documents) can ask for the plain ranking's rows that hold its range and drop
/// them itself, instead of having the source test every ranked row against the list: the same
/// rows, as long as the data is still in ``matchGeneration``.
public struct RankPositions: Sendable, Hashable {
    /// Position of each document that matches; those that do not match are absent.
    public let positions: [String: Int]
    /// The state of the data the positions were read in; nil when the source cannot name it,
    /// and then the positions must not be used with any other read.
    public let matchGeneration: String?
    /// The positions, ascending.
    let sorted: [Int]

    public init(positions: [String: Int], matchGeneration: String?) {
        self.positions = positions
        self.matchGeneration = matchGeneration
        self.sorted = positions.values.sorted()
    }

    /// How many of the documents match.
    public var count: Int { positions.count }

    /// Whether `id` is one of the documents that match.
    public func contains(_ id: String) -> Bool { positions[id] != nil }

    /// The rows of the whole ranking that hold `range` of the ranking without these documents:
    /// its first row is where that ranking's `range.lowerBound`-th row stands in the whole one,
    /// its last where the last one does, and those of these documents in between are inside it.
    /// An empty range maps to an empty range.
    public func window(covering range: Range<Int>) -> Range<Int> {
        guard !range.isEmpty else { return fullIndex(range.lowerBound)..<fullIndex(range.lowerBound) }
        return fullIndex(range.lowerBound)..<(fullIndex(range.upperBound - 1) + 1)
    }

    /// Where the `index`-th row of the ranking without these documents stands in the whole one:
    /// one further for each of them at or before it.
    func fullIndex(_ index: Int) -> Int {
        var full = index
        for position in sorted {
            guard position <= full else { break }
            full += 1
        }
        return full
    }
}
