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

/// What a gateway knows of where one snapshot's placed documents stand in A.
enum PlacedPositions: Sendable {
    /// Read in ``RankPositions/matchGeneration``, and usable while pages read that one.
    case known(RankPositions)
    /// A page found the corpus in `generation`, not the one the positions were read in: pages
    /// exclude B in their query until one finds the same generation again (the corpus has
    /// settled), which reads the positions anew. A corpus written between every two pages so
    /// costs a page no more than excluding does, instead of a read of the positions each time.
    case settling(generation: String?)
    /// The source cannot say, or the positions name no generation.
    case unavailable
}

extension SearchService {
    /// A's range with B's placed documents left out by where they stand in A: the plain
    /// ranking's rows that hold the range (``RankPositions/window(covering:)``), from which the
    /// placed ones are dropped here. A live-only page's statement with other bounds, instead of
    /// one that tests every ranked row against the placed ids: that test, its longer statement
    /// and its bound ids were most of what an interleaved page cost more than a live-only one.
    ///
    /// The positions are read once per snapshot version and kept (``placedPositions``); they
    /// hold while the source reads the generation they were read in (``PlacedPositions``).
    func liveRange(
        query: String, excluding placed: [String], range: Range<Int>, vouched: String?, positionsOf key: PlacedPositionsKey?
    ) async throws(GatewayError) -> SearchResult {
        guard let key, let cache = placedPositions, !placed.isEmpty, !range.isEmpty else {
            return try await liveRange(query: query, excluding: placed, range: range, vouched: vouched)
        }
        let state: PlacedPositions
        if let kept = cache.value(for: key) {
            state = kept
        } else {
            state = await readPlacedPositions(key, query: query, placed: placed)
        }
        switch state {
        case .unavailable:
            return try await liveRange(query: query, excluding: placed, range: range, vouched: vouched)
        case .settling(let awaited):
            let result = try await liveRange(query: query, excluding: placed, range: range, vouched: vouched)
            if let generation = result.matchGeneration, generation == awaited {
                await readPlacedPositions(key, query: query, placed: placed)
            } else {
                keep(.settling(generation: result.matchGeneration), for: key)
            }
            return result
        case .known(let positions):
            let window = positions.window(covering: range)
            let result = try await live(SearchRequest(query: query, from: window.lowerBound, size: window.count, profile: .relevance))
            guard let generation = result.matchGeneration, generation == positions.matchGeneration else {
                keep(.settling(generation: result.matchGeneration), for: key)
                return try await liveRange(query: query, excluding: placed, range: range, vouched: vouched)
            }
            let hits = result.hits.lazy.filter { !positions.contains($0.id) }.prefix(range.count)
            return SearchResult(
                hits: Array(hits), total: max(0, result.total - positions.count), matchGeneration: generation,
                totalIsLowerBound: result.totalIsLowerBound)
        }
    }

    /// Reads `key`'s positions and keeps what was learnt (a failed read keeps nothing: the
    /// next page asks again).
    @discardableResult
    func readPlacedPositions(_ key: PlacedPositionsKey, query: String, placed: [String]) async -> PlacedPositions {
        let read: RankPositions?
        do {
            read = try await Deadline.run(timeout: liveTimeout) { [source] in try await source.relevancePositions(of: placed, query: query) }
        } catch {
            logger.debug("placed documents' positions not read; the page excludes them", metadata: ["error": "\(error)"])
            return .unavailable
        }
        let state: PlacedPositions = read.map { $0.matchGeneration == nil ? .unavailable : .known($0) } ?? .unavailable
        keep(state, for: key)
        return state
    }

    private func keep(_ state: PlacedPositions, for key: PlacedPositionsKey) {
        // Ids and positions, with the dictionary's overhead.
        let bytes: Int
        if case .known(let positions) = state {
            bytes = 64 + positions.positions.keys.reduce(0) { $0 + $1.utf8.count + 48 }
        } else {
            bytes = 64
        }
        placedPositions?.insert(state, bytes: bytes, for: key)
    }
}
