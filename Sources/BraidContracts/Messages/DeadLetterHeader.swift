/// The headers a worker adds to a request it dead-letters (`braid.requests.dlq`), and the one
/// `braid ops dlq replay` adds to what it republishes. Written once here: the worker writes
/// them, the console and `braid ops dlq` read them.
public enum DeadLetterHeader {
    /// What every dead-letter header name starts with (a replay drops them all).
    public static let prefix = "braid-dlq-"
    /// Why the request was dead-lettered (UTF-8 text).
    public static let reason = "braid-dlq-reason"
    /// `<topic>/<partition>/<offset>` of the original message.
    public static let source = "braid-dlq-source"
    /// Processing attempts made.
    public static let attempts = "braid-dlq-attempts"
    /// RFC 3339 time of dead-lettering.
    public static let failedAt = "braid-dlq-failed-at"
    /// On a replayed request: `<topic>/<partition>/<offset>` of the dead letter it came from.
    public static let replayOf = "braid-replay-of"
}
