import Foundation
import BraidCore

extension BraidConfiguration.GatewaySection {
    /// When cursors and impression ids signed with `previous_cursor_key` stop being accepted;
    /// nil when no previous key is configured (or the time does not parse: `validate()` says so).
    public var previousCursorKeyExpiry: Date? {
        guard !previousCursorKey.isEmpty, let previousCursorKeyUntil else { return nil }
        return Self.rfc3339(previousCursorKeyUntil)
    }

    /// The same for `previous_impression_key`, which ends at the same time.
    public var previousImpressionKeyExpiry: Date? {
        guard !previousImpressionKey.isEmpty, let previousCursorKeyUntil else { return nil }
        return Self.rfc3339(previousCursorKeyUntil)
    }

    static func rfc3339(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions.insert(.withFractionalSeconds)
        return formatter.date(from: text)
    }
}

extension BraidConfiguration {
    /// The pairs of secret settings that only mean something together. Messages name keys,
    /// never values.
    func validateSecrets() throws(ConfigurationError) {
        func fail(_ message: String) -> ConfigurationError { ConfigurationError(message: message) }
        guard gateway.impressionKey != gateway.cursorKey else {
            throw fail("gateway.impression_key must differ from gateway.cursor_key")
        }
        if !gateway.previousImpressionKey.isEmpty {
            guard gateway.previousImpressionKey != gateway.impressionKey else {
                throw fail("gateway.previous_impression_key must differ from gateway.impression_key")
            }
        }
        if gateway.previousCursorKey.isEmpty && gateway.previousImpressionKey.isEmpty {
            guard gateway.previousCursorKeyUntil == nil else {
                throw fail("gateway.previous_cursor_key_until is set but neither gateway.previous_cursor_key nor gateway.previous_impression_key is")
            }
        } else {
            guard gateway.previousCursorKey.isEmpty || gateway.previousCursorKey != gateway.cursorKey else {
                throw fail("gateway.previous_cursor_key must differ from gateway.cursor_key")
            }
            guard let until = gateway.previousCursorKeyUntil, BraidConfiguration.GatewaySection.rfc3339(until) != nil else {
                throw fail(
                    "gateway.previous_cursor_key_until must be an RFC 3339 time such as 2026-12-01T00:00:00Z "
                        + "(until when the previous key is accepted), not '\(gateway.previousCursorKeyUntil ?? "")'")
            }
        }
        let elasticsearch = search.elasticsearch
        guard elasticsearch.apiKey.isEmpty || elasticsearch.username == nil else {
            throw fail("search.elasticsearch.api_key and search.elasticsearch.username exclude each other: set one")
        }
        guard elasticsearch.password.isEmpty || elasticsearch.username != nil else {
            throw fail("search.elasticsearch.password is set but search.elasticsearch.username is not")
        }
    }
}
