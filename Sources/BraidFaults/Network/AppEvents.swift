import BraidHarness
import Foundation
import NIOHTTP1

/// What an app sends a gateway besides page requests: experiment events.
enum AppEvents {
    /// Posts `events` (`{"type": …, "impression_id": …}` objects) to `base`'s `/v1/events`, 100
    /// to a request, as a client batches them; returns how many the gateway accepted.
    @discardableResult
    static func post(_ events: [[String: Any]], to base: String) async throws -> Int {
        var accepted = 0
        for start in stride(from: 0, to: events.count, by: 100) {
            let body = try JSONSerialization.data(withJSONObject: ["events": Array(events[start..<min(start + 100, events.count)])])
            let response = try await HTTPProbe.request(
                "\(base)/v1/events", method: .POST, body: body, headers: [("Content-Type", "application/json")])
            guard response.status == 202 else {
                throw HarnessError.failed("POST /v1/events answered \(response.status): \(response.text.prefix(300))")
            }
            accepted += response.json?["accepted"] as? Int ?? 0
        }
        return accepted
    }
}
