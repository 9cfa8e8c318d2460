import Foundation

/// What went wrong with a request to the gateway: the gateway's own error (`{"error": {"code",
/// "message"}}` with its status), or no usable answer at all (the network, or a body that is not
/// what `Schemas/openapi.yaml` promises).
public struct BraidClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status; nil when no response arrived (``code`` is then `transport`).
    public var status: Int?
    /// The gateway's error code (`invalid_event`, `rate_limited`, …), or `transport` and
    /// `unexpected_response` for failures on this side.
    public var code: String
    public var message: String
    /// How long the gateway asked the caller to wait (`Retry-After` on 429 and 503).
    public var retryAfter: Duration?

    public init(status: Int?, code: String, message: String, retryAfter: Duration? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
    }

    /// Whether sending the same request later may succeed: no answer, a rate limit, or a
    /// server-side failure. A 4xx other than 408 and 429 fails the same way again.
    public var isRetryable: Bool {
        guard let status else { return true }
        return status == 408 || status == 429 || status >= 500
    }

    /// `POST /v1/events` refuses a whole batch for its first bad event and names it: the
    /// message starts `events[<index>]`. The index, when this error is such a refusal.
    public var refusedEventIndex: Int? {
        guard let status, status == 400 || status == 403, message.hasPrefix("events[") else { return nil }
        let digits = message.dropFirst("events[".count).prefix { $0.isNumber }
        guard !digits.isEmpty, message.dropFirst("events[".count + digits.count).first == "]" else { return nil }
        return Int(digits)
    }

    public var description: String {
        if let status { return "\(status) \(code): \(message)" }
        return "\(code): \(message)"
    }

    static func transport(_ error: any Error) -> BraidClientError {
        BraidClientError(status: nil, code: "transport", message: "\(error)")
    }

    static func unexpected(status: Int, _ what: String) -> BraidClientError {
        BraidClientError(status: status, code: "unexpected_response", message: what)
    }
}
