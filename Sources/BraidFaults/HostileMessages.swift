/// The malformed and hostile messages of `hostile`: ten kinds, in turn.
enum HostileMessages {
    /// Message `index`: not JSON, a foreign schema version, an unknown kind, a 60,000-character
    /// query, 5,000-deep nested arrays, an unknown ranking, a bad time, a 10³⁰ size, missing
    /// fields, NUL ids (and a null kind).
    static func message(_ index: Int) -> String {
        switch index % 10 {
        case 0: "{not json at all"
        case 1: valid(schema: #""braid.request/v9""#)
        case 2: valid(kind: #""teleport""#)
        case 3: valid(ranking: #"{"id": "featured", "query": ""# + String(repeating: "x", count: 60_000) + #""}"#)
        case 4: String(repeating: "[", count: 5_000) + String(repeating: "]", count: 5_000)
        case 5: valid(ranking: #"{"id": "no-such-ranking", "query": "curry"}"#)
        case 6: valid(requestedAt: #""yesterday""#)
        case 7: valid(ranking: #"{"id": "featured", "query": "curry", "size": 1000000000000000000000000000000}"#)
        case 8: #"{"schema": "braid.request/v1"}"#
        default: valid(id: #""\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000""#, kind: "null")
        }
    }

    /// A valid ranking request with some fields replaced (values are JSON text).
    private static func valid(
        schema: String = #""braid.request/v1""#, id: String = #""00000000-0000-4000-8000-000000000000""#, kind: String = #""ranking""#,
        ranking: String = #"{"id": "featured", "query": "curry"}"#, requestedAt: String = #""2026-11-22T10:00:00Z""#
    ) -> String {
        #"{"schema": \#(schema), "id": \#(id), "kind": \#(kind), "ranking": \#(ranking), "requested_at": \#(requestedAt)}"#
    }
}

/// The `reason:` lines of `hostile`: how many dead letters carry each `braid-dlq-reason`,
/// most first, at most 12, as `uniq -c` counts them (the reason up to its first comma and
/// 63 bytes long; ties in reverse byte order, as `sort -rn` leaves them).
enum ReasonTally {
    static func lines(_ reasons: [String]) -> [String] {
        var counts: [String: Int] = [:]
        for reason in reasons {
            let cut = reason.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            counts[String(decoding: Array(cut.utf8.prefix(63)), as: UTF8.self), default: 0] += 1
        }
        let lines = counts.map { reason, count in (count, String(repeating: " ", count: max(0, 7 - String(count).count)) + "\(count) \(reason)") }
        return lines.sorted { $0.0 != $1.0 ? $0.0 > $1.0 : Array($1.1.utf8).lexicographicallyPrecedes(Array($0.1.utf8)) }
            .prefix(12).map { "  reason: \($0.1)" }
    }
}
