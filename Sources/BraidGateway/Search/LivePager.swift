import BraidContracts
import BraidCore
import BraidSources
import Foundation

/// Finds the live (A) side of one page of a walk: one pager per paging mode, chosen from the
/// page's position by ``SearchService/pager(for:record:vouched:positionsOf:now:)``. Two-ranking and
/// multileave pages share them; only what they place of the cached rankings differs.
protocol LivePager: Sendable {
    /// A's side of a page whose A slots, planned as if A were endless, are `open`, with the
    /// cached rankings' placed documents `placed` excluded from A.
    func side(query: String, placed: [String], open: Range<Int>) async throws(GatewayError) -> LiveSide
}

/// A walk past A's end: its total is final (the cursor carries it), and A is asked for nothing.
struct ExhaustedPager: LivePager {
    let total: Int
    let mode: WalkState.Mode

    func side(query: String, placed: [String], open: Range<Int>) async throws(GatewayError) -> LiveSide {
        LiveSide(hits: [], from: 0, total: total, mode: mode)
    }
}

/// A later page of a recorded walk: A's best documents the walk has not shown, appended to the
/// walk's record, or the page as recorded when it is served again (``SearchService/recordedSide``).
struct RecordedPager: LivePager {
    let service: SearchService
    let walk: WalkState
    /// The record, read alongside the page's snapshots.
    let record: RecordRead
    /// Until when the record is kept: the next cursor's expiry.
    let expiresAt: Int64

    func side(query: String, placed: [String], open: Range<Int>) async throws(GatewayError) -> LiveSide {
        try await service.recordedSide(query: query, placed: placed, open: open, walk: walk, record: record, expiresAt: expiresAt)
    }
}

/// A page planned by position: page 1 of a walk, `page=k`, and walks paged by offset (records
/// off, lost or full). One range of A.
struct OffsetPager: LivePager {
    let service: SearchService
    /// The page's `walk` field, and how the walk goes on from the next page.
    let mode: WalkState.Mode
    let next: WalkState.Mode
    /// Page 1 of a list: a short answer there bounds the list (``PageAssembler/effectiveTotal``).
    let startsList: Bool
    /// The match generation that vouches for the placed documents (see ``SearchService/vouchedGeneration``).
    let vouched: String?
    /// The snapshot whose placed documents are left out, when their positions in A may do it.
    let positionsOf: PlacedPositionsKey?

    func side(query: String, placed: [String], open: Range<Int>) async throws(GatewayError) -> LiveSide {
        let result = try await service.liveRange(query: query, excluding: placed, range: open, vouched: vouched, positionsOf: positionsOf)
        return side(hits: result.hits, total: result.total, totalIsLowerBound: result.totalIsLowerBound, open: open)
    }

    /// The side of hits already fetched for `open` (a cold page's prefix), with A's `total`.
    /// A short answer ends A, whatever the source counted: the total is then exact.
    func side(hits: [SearchHit], total: Int, totalIsLowerBound: Bool = false, open: Range<Int>) -> LiveSide {
        let total = PageAssembler.effectiveTotal(
            reported: total, from: open.lowerBound, requested: open.count, received: hits.count, startsList: startsList)
        var side = LiveSide(hits: hits, from: open.lowerBound, total: total, mode: mode, next: next)
        side.totalIsLowerBound = totalIsLowerBound && hits.count == open.count
        return side
    }
}

extension SearchService {
    /// The pager of a page's paging mode. `record` is the walk's record when the position
    /// reads one (``Position/readsRecord``); `vouched` is the generation a two-ranking page's
    /// snapshot was ranked in, `positionsOf` that snapshot.
    func pager(for position: Position, record: RecordRead?, vouched: String?, positionsOf: PlacedPositionsKey? = nil, now: Date) -> any LivePager {
        if let total = position.walk.exhaustedTotal { return ExhaustedPager(total: total, mode: position.walk.mode) }
        if position.readsRecord {
            return RecordedPager(
                service: self, walk: position.walk, record: record ?? .firstPage(position.walk.firstPageIDs ?? []),
                expiresAt: Int64(now.timeIntervalSince1970) + Int64(cursorTTLSeconds))
        }
        return offsetPager(for: position, vouched: vouched, positionsOf: positionsOf)
    }

    /// The pager of a page planned by position.
    func offsetPager(for position: Position, vouched: String?, positionsOf: PlacedPositionsKey?) -> OffsetPager {
        OffsetPager(
            service: self, mode: pageMode(position), next: position.walk.mode, startsList: position.pinned == nil, vouched: vouched,
            positionsOf: positionsOf)
    }
}
