import BraidContracts
import BraidCore
import BraidObservability
import BraidPrecompute
import BraidSources
import Foundation
import Logging
import Metrics

/// A's side of one page of a walk (two-ranking and multileave pages alike).
struct LiveSide {
    /// A's documents by A index from ``from``; nil where a page served again lost a document
    /// (deleted, or no longer matching, since it was first served).
    var hits: [SearchHit?]
    var from: Int
    /// A's total for the planner: the page ends the list where A runs out.
    var total: Int
    /// `total` is a lower bound (``SearchResult/totalIsLowerBound``): the page's `total` says so.
    var totalIsLowerBound = false
    /// How this page was planned (its `walk` field).
    var mode: WalkState.Mode
    /// How the walk goes on from the next page.
    var next: WalkState.Mode
    /// Set when the page was served again from the record: the record's expiry, which its next
    /// cursor carries (the same cursor the page first had, while the walk went no further).
    var replayExpiry: Int64?

    init(hits: [SearchHit?], from: Int, total: Int, mode: WalkState.Mode, next: WalkState.Mode? = nil, replayExpiry: Int64? = nil) {
        self.hits = hits
        self.from = from
        self.total = total
        self.mode = mode
        self.next = next ?? mode
        self.replayExpiry = replayExpiry
    }
}

/// What a walk page found of the walk's record.
enum RecordRead {
    /// Page 2 of a walk whose first page travels in the cursor: no record exists yet.
    case firstPage([String])
    case read(WalkRecord?)
    /// Redis could not be asked.
    case failed
}

extension SearchService {
    /// The `walk` field of a page not planned from a record: page 1 says how its walk goes on,
    /// `page=k` pages are planned by offset.
    func pageMode(_ position: Position) -> WalkState.Mode {
        position.pinned == nil && position.offset > 0 ? .offset : position.walk.mode
    }

    func readRecord(_ walk: WalkState) async -> RecordRead {
        if let ids = walk.firstPageIDs { return .firstPage(ids) }
        guard let walks else { return .failed }
        do {
            return .read(try await walks.read(walk.id))
        } catch {
            logger.warning("walk record unreadable; paging by offset", metadata: ["walk": "\(walk.idText)", "error": "\(error)"])
            return .failed
        }
    }

    /// A's side of a page of a recorded walk: A's best documents the walk has not shown (B's
    /// placed documents excluded as ever), appended to the record; or the page as recorded when
    /// it was served before; or, when the record is gone, A's range by offset.
    ///
    /// - Parameters:
    ///   - placed: B's placed documents (every cached ranking's, multileaving).
    ///   - open: the page's A range planned as if A were endless: where its A slots sit.
    func recordedSide(
        query: String, placed: [String], open: Range<Int>, walk: WalkState, record: RecordRead, expiresAt: Int64
    ) async throws(GatewayError) -> LiveSide {
        let shown: [String]
        switch record {
        case .firstPage(let ids) where walk.page == 2:
            shown = ids
        case .read(let found?):
            switch found.step(forPage: walk.page) {
            case .replay(let page):
                let before = found.pages.prefix(walk.page - 1).flatMap(\.ids)
                return try await replay(page, query: query, placed: placed, shown: before, open: open, expiresAt: found.expiresAt)
            case .extend(let ids):
                shown = ids
            case .lost:
                return try await offsetSide(query: query, placed: placed, open: open, mode: .lost)
            }
        default:
            return try await offsetSide(query: query, placed: placed, open: open, mode: .lost)
        }
        guard let walks, placed.count + shown.count <= SearchRequest.maxExcluded else {
            return try await offsetSide(query: query, placed: placed, open: open, mode: .capped)
        }

        // A's documents before this page are the walk's base and the ones it showed; the rest of
        // A's matches, less the base, follow them.
        let result = try await liveRange(query: query, excluding: placed + shown, range: walk.aBase..<(walk.aBase + open.count))
        let total = PageAssembler.effectiveTotal(
            reported: open.lowerBound + max(0, result.total - walk.aBase), from: open.lowerBound, requested: open.count,
            received: result.hits.count)
        let page = WalkRecord.Page(ids: result.hits.map(\.id), aTotal: total)
        var served = LiveSide(hits: result.hits, from: open.lowerBound, total: total, mode: .recorded)
        served.totalIsLowerBound = result.totalIsLowerBound && result.hits.count == open.count
        let pages = walk.firstPageIDs.map { [WalkRecord.Page(ids: $0, aTotal: nil), page] } ?? [page]
        do {
            switch try await walks.append(walk.id, pages: pages, from: walk.page - pages.count + 1, expiresAt: expiresAt) {
            case .appended:
                return served
            case .existing(let stored, let expiry):
                // Another request for this cursor recorded the page first: serve that one.
                guard stored != page else {
                    Counter(.gatewayWalkPages, dimensions: [("outcome", "served_again")]).increment()
                    var again = served
                    again.replayExpiry = expiry
                    return again
                }
                return try await replay(stored, query: query, placed: placed, shown: shown, open: open, expiresAt: expiry)
            case .lost:
                return degrade(served, to: .lost, walk: walk, reason: "the record lacks earlier pages")
            case .capped:
                return degrade(served, to: .capped, walk: walk, reason: "the record is full")
            }
        } catch {
            return degrade(served, to: .lost, walk: walk, reason: "\(error)")
        }
    }

    /// A page computed from the whole record whose walk cannot be recorded further.
    private func degrade(_ side: LiveSide, to mode: WalkState.Mode, walk: WalkState, reason: String) -> LiveSide {
        logger.warning("walk not recorded further; its later pages are paged by offset", metadata: ["walk": "\(walk.idText)", "reason": "\(reason)"])
        Counter(.gatewayWalkPages, dimensions: [("outcome", mode.name)]).increment()
        var side = side
        side.next = mode
        return side
    }

    /// A page served again: the recorded documents in their slots with their current fields,
    /// less those that no longer exist or match. The source is asked for them by id; one that
    /// cannot restrict to ids (a version 1 HTTP ranking service) answers the query without the
    /// earlier pages' documents instead, and the recorded ones among its first hits are kept.
    func replay(
        _ page: WalkRecord.Page, query: String, placed: [String], shown: [String], open: Range<Int>, expiresAt: Int64
    ) async throws(GatewayError) -> LiveSide {
        guard let total = page.aTotal else { return try await offsetSide(query: query, placed: placed, open: open, mode: .lost) }
        Counter(.gatewayWalkPages, dimensions: [("outcome", "served_again")]).increment()
        guard !page.ids.isEmpty else { return LiveSide(hits: [], from: open.lowerBound, total: total, mode: .recorded, replayExpiry: expiresAt) }
        let excluded = placed.count + shown.count <= SearchRequest.maxExcluded ? placed + shown : []
        let result = try await live(SearchRequest(
            query: query, excluding: excluded, from: 0, size: min(SearchRequest.maxSize, 2 * page.ids.count + 20), profile: .relevance,
            needsTotal: false, ids: page.ids))
        var found: [String: SearchHit] = [:]
        for hit in result.hits where found[hit.id] == nil { found[hit.id] = hit }
        return LiveSide(hits: page.ids.map { found[$0] }, from: open.lowerBound, total: total, mode: .recorded, replayExpiry: expiresAt)
    }

    /// A's range by offset, B's placed documents excluded: a walk page whose record is lost or
    /// full.
    func offsetSide(query: String, placed: [String], open: Range<Int>, mode: WalkState.Mode) async throws(GatewayError) -> LiveSide {
        if mode == .lost { Counter(.gatewayWalkPages, dimensions: [("outcome", "lost")]).increment() }
        return try await OffsetPager(service: self, mode: mode, next: mode, startsList: false, vouched: nil, positionsOf: nil)
            .side(query: query, placed: placed, open: open)
    }

    /// The next page's cursor: `base` with the walk carried on. A walk's first page puts its A
    /// documents in the cursor (sorted: they pack smaller), unless the cursor would then be too
    /// long for a URL; the record then begins now, with that page.
    ///
    /// - Parameters:
    ///   - shown: A's documents on this page.
    ///   - exhausted: A ran out on this page: its total is final for the walk.
    func nextCursor(_ base: SearchCursor, position: Position, side: LiveSide, shown: [String], exhausted: Bool) async -> String {
        var cursor = base
        if let expiry = side.replayExpiry { cursor.expiresAt = expiry }
        var walk = position.walk
        walk.mode = side.next
        walk.page += 1
        walk.firstPageIDs = nil
        if position.pinned == nil { walk.aBase = side.from }
        if walk.exhaustedTotal == nil, exhausted { walk.exhaustedTotal = side.total }
        if position.pinned == nil, walk.mode == .recorded, walk.exhaustedTotal == nil {
            cursor.walk = walk
            cursor.walk?.firstPageIDs = shown.sorted()
            let text = codec.encode(cursor)
            if text.utf8.count <= CursorCodec.maxTextLength { return text }
            walk.mode = await beginRecord(walk, page: shown, expiresAt: cursor.expiresAt)
        }
        cursor.walk = walk
        return codec.encode(cursor)
    }

    /// Writes a walk's first page to a new record; the mode the walk goes on in.
    func beginRecord(_ walk: WalkState, page ids: [String], expiresAt: Int64) async -> WalkState.Mode {
        guard let walks else { return .offset }
        do {
            switch try await walks.append(walk.id, pages: [WalkRecord.Page(ids: ids, aTotal: nil)], from: 1, expiresAt: expiresAt) {
            case .appended, .existing: return .recorded
            case .lost: return .lost
            case .capped: return .capped
            }
        } catch {
            logger.warning("walk record not written; the walk is paged by offset", metadata: ["walk": "\(walk.idText)", "error": "\(error)"])
            return .lost
        }
    }
}
