import BraidCore
import BraidSources
import Logging

/// Which snapshot's placed documents a page leaves out of A: positions are kept per snapshot
/// version (immutable) and number placed (arms may place different prefixes of one snapshot).
struct PlacedPositionsKey: Hashable, Sendable {
    var ranking: String
    var query: String
    var version: Int64
    var placed: Int
}

extension SearchService {
    /// A's range with B's placed documents left out by where they stand in A: the plain
    /// ranking's rows that hold the range (``RankPositions/window(covering:)``), from which the
    /// placed ones are dropped here. A live-only page's statement with other bounds, instead of
    /// one that tests every ranked row against the placed ids: that test, its longer statement
    /// and its bound ids were most of what an interleaved page cost more than a live-only one.
    ///
    /// The positions are read once per snapshot version and kept (``placedPositions``); they
    /// hold while the source reads the generation they were read in. A page read in another
    /// one takes the excluding statement, and the positions are read again for the next page.
    func liveRange(
        query: String, excluding placed: [String], range: Range<Int>, vouched: String?, positionsOf key: PlacedPositionsKey?
    ) async throws(GatewayError) -> SearchResult {
        guard let key, !placed.isEmpty, !range.isEmpty, let positions = await placedPositions(key, query: query, placed: placed) else {
            return try await liveRange(query: query, excluding: placed, range: range, vouched: vouched)
        }
        let window = positions.window(covering: range)
        let result = try await live(SearchRequest(query: query, from: window.lowerBound, size: window.count, profile: .relevance))
        guard let generation = result.matchGeneration, generation == positions.matchGeneration else {
            await readPlacedPositions(key, query: query, placed: placed)
            return try await liveRange(query: query, excluding: placed, range: range, vouched: vouched)
        }
        let hits = result.hits.lazy.filter { !positions.contains($0.id) }.prefix(range.count)
        return SearchResult(hits: Array(hits), total: max(0, result.total - positions.count), matchGeneration: generation)
    }

    /// The kept positions of `key`'s placed documents, read now when not kept; nil when the
    /// source cannot say, the cache is off, or the read failed (the page then excludes them).
    func placedPositions(_ key: PlacedPositionsKey, query: String, placed: [String]) async -> RankPositions? {
        guard let cache = placedPositions else { return nil }
        if let kept = cache.value(for: key) { return kept.matchGeneration == nil ? nil : kept }
        return await readPlacedPositions(key, query: query, placed: placed)
    }

    /// Reads `key`'s positions and keeps them (replacing any kept). What a source that cannot
    /// say answers, and positions without a generation, are kept too, unused, so a page of
    /// that snapshot does not ask again.
    @discardableResult
    func readPlacedPositions(_ key: PlacedPositionsKey, query: String, placed: [String]) async -> RankPositions? {
        guard let cache = placedPositions else { return nil }
        let read: RankPositions?
        do {
            read = try await Deadline.run(timeout: liveTimeout) { [source] in try await source.relevancePositions(of: placed, query: query) }
        } catch {
            logger.debug("placed documents' positions not read; the page excludes them", metadata: ["error": "\(error)"])
            return nil
        }
        let kept = read ?? RankPositions(positions: [:], matchGeneration: nil)
        // Ids and positions, with the dictionary's overhead.
        let bytes = 64 + kept.positions.keys.reduce(0) { $0 + $1.utf8.count + 48 }
        cache.insert(kept, bytes: bytes, for: key)
        return kept.matchGeneration == nil ? nil : kept
    }
}
