import BraidSources

/// Takes a page's A range from a prefix of A fetched before B was known: pure, so the one
/// place where a parallel fetch must equal the sequential one is tested without servers.
enum PrefixReconciliation {
    enum Outcome: Equatable {
        /// Exactly the hits the sequential query (B's documents excluded, `range`) returns,
        /// fewer only where A ends.
        case complete([SearchHit])
        /// The prefix ran out of documents that are not B's before the range ended: `have`
        /// are the range's first hits, the rest starts at A index `next` (B excluded).
        case short(have: [SearchHit], next: Int)
    }

    /// `prefix` is A's first documents with nothing excluded, `requested` how many were asked
    /// for (fewer came back: A has no more). Removing `excluding` from it leaves A-without-B in
    /// order, because excluding documents does not change the order or scores of the others.
    static func slice(prefix: [SearchHit], requested: Int, excluding: Set<String>, range: Range<Int>) -> Outcome {
        guard !range.isEmpty else { return .complete([]) }
        let remaining = excluding.isEmpty ? prefix : prefix.filter { !excluding.contains($0.id) }
        if remaining.count >= range.upperBound || prefix.count < requested {
            return .complete(Array(remaining[min(range.lowerBound, remaining.count)..<min(range.upperBound, remaining.count)]))
        }
        let have = range.lowerBound < remaining.count ? Array(remaining[range.lowerBound...]) : []
        return .short(have: have, next: max(range.lowerBound, remaining.count))
    }
}
