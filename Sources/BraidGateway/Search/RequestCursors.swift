import BraidContracts
import BraidCore
import Foundation

/// Every check a cursor a client sent must pass, in one place, as the 400s the gateway answers:
/// the codec's (signature, format, expiry: `invalid_cursor`, `cursor_expired`), the clocks'
/// (`cursor_from_the_future`: an expiry further ahead than a cursor's lifetime allows, issued
/// by a gateway whose clock runs ahead), and the request's (`cursor_mismatch`: another query,
/// configuration, component or page size than the cursor's).
struct RequestCursors: Sendable {
    let codec: CursorCodec
    /// The cursor lifetime this gateway issues cursors with (`gateway.cursor_ttl_seconds`).
    let lifetimeSeconds: Int

    /// The cursor of a search page for `query` under the arm whose configuration hash is
    /// `configurationHash`. `perPage` is the `per_page` the request named, if any: a cursor
    /// keeps its page size, and another one is refused rather than silently ignored.
    func search(_ text: String, query: String, configurationHash: UInt64, perPage: Int?, now: Date) throws(GatewayError) -> SearchCursor {
        let cursor: SearchCursor
        do {
            cursor = try codec.decodeSearch(text, now: now)
        } catch {
            throw Self.refused(error)
        }
        try checkExpiry(cursor.expiresAt, now: now)
        guard cursor.queryHash == QueryNormalizer.hash(query) else {
            throw .badRequest("the cursor belongs to another query; pass the same q as on page 1", code: "cursor_mismatch")
        }
        guard cursor.configurationHash == configurationHash else {
            throw .badRequest(
                "the cursor was made for another ranking or interleaving configuration; pass the same ranking and session as on page 1, or start again",
                code: "cursor_mismatch")
        }
        if let perPage, perPage != cursor.pageSize {
            throw .badRequest(
                "per_page is \(perPage) but the cursor's pages hold \(cursor.pageSize); leave per_page out when passing a cursor",
                code: "cursor_mismatch")
        }
        return cursor
    }

    /// The cursor of a component's page, bound to `binding` (its feed, component, user and tab
    /// search) and its configured page size.
    func component(_ text: String, binding: UInt64, pageSize: Int, now: Date) throws(GatewayError) -> ComponentCursor {
        let cursor: ComponentCursor
        do {
            cursor = try codec.decodeComponent(text, now: now)
        } catch .otherList {
            throw .badRequest("the cursor belongs to another list", code: "cursor_mismatch")
        } catch {
            throw Self.refused(error)
        }
        try checkExpiry(cursor.expiresAt, now: now)
        guard cursor.binding == binding, cursor.pageSize == pageSize else {
            throw .badRequest("the cursor belongs to another component, user or tab search", code: "cursor_mismatch")
        }
        return cursor
    }

    /// A cursor expiring later than a lifetime plus the clock skew tolerance from now was issued
    /// by a clock that far ahead: refused as such, not honoured past its lifetime.
    private func checkExpiry(_ expiresAt: Int64, now: Date) throws(GatewayError) {
        let latest = Int64(now.timeIntervalSince1970) + Int64(lifetimeSeconds) + Int64(ClockSkew.toleranceSeconds)
        guard expiresAt <= latest else {
            throw .badRequest(
                "the cursor was issued by a server whose clock is more than \(ClockSkew.toleranceSeconds) s ahead of this one's; "
                    + "the servers' clocks must agree (start again from page 1)", code: "cursor_from_the_future")
        }
    }

    private static func refused(_ error: CursorError) -> GatewayError {
        .badRequest(error.description, code: error == .expired ? "cursor_expired" : "invalid_cursor")
    }
}
