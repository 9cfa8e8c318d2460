import BraidCore
import Foundation

extension CursorCodec {
    /// How far apart the clocks of the gateways that serve one walk may be. Cursors carry their
    /// expiry, written from the clock of the gateway that issued them: a cursor that expires
    /// later than `lifetime` plus this from now was issued by a clock that far ahead, and is
    /// refused as such instead of being honoured past its lifetime (README, "Deploying": clocks).
    public static let clockSkewToleranceSeconds = ClockSkew.toleranceSeconds

    /// Decodes a cursor a client sent; every way it can be unusable is a 400, with
    /// `cursor_expired` (start again from page 1) and `cursor_from_the_future` (the gateways'
    /// clocks disagree by more than ``clockSkewToleranceSeconds``) told apart from
    /// `invalid_cursor`. `lifetime` is the cursor TTL this gateway issues cursors with.
    func decodeRequestCursor(_ text: String, now: Date, lifetime: Int) throws(GatewayError) -> Cursor {
        let cursor: Cursor
        do {
            cursor = try decode(text, now: now)
        } catch {
            throw .badRequest(error.description, code: error == .expired ? "cursor_expired" : "invalid_cursor")
        }
        let latest = Int64(now.timeIntervalSince1970) + Int64(lifetime) + Int64(Self.clockSkewToleranceSeconds)
        guard cursor.expiresAt <= latest else {
            throw .badRequest(
                "the cursor was issued by a server whose clock is more than \(Self.clockSkewToleranceSeconds) s ahead of this one's; "
                    + "the servers' clocks must agree (start again from page 1)", code: "cursor_from_the_future")
        }
        return cursor
    }
}
