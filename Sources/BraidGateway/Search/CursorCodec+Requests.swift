import BraidCore
import Foundation

extension CursorCodec {
    /// Decodes a cursor a client sent; every way it can be unusable is a 400, with
    /// `cursor_expired` (start again from page 1) told apart from `invalid_cursor`.
    func decodeRequestCursor(_ text: String, now: Date) throws(GatewayError) -> Cursor {
        do {
            return try decode(text, now: now)
        } catch {
            throw .badRequest(error.description, code: error == .expired ? "cursor_expired" : "invalid_cursor")
        }
    }
}
