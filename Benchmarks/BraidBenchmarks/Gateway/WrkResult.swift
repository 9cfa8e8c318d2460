/// One wrk run's figures, at the precision the group keeps (requests/s to 0.1, latencies to
/// 0.001 ms): later means and ratios are taken over these rounded values, the same way in
/// every run.
struct WrkResult: Equatable {
    /// `%.1f` of Requests/sec.
    var rps: String
    /// `%.3f` of the 99th percentile, ms.
    var p99: String
    var requests: Int
    /// `%.3f` of the 50th percentile, ms.
    var p50: String

    /// Parses `wrk --latency` output. Nil when it reports a non-2xx/3xx response or a socket
    /// error (the run must be refused), or lacks a figure.
    static func parse(_ text: String) -> WrkResult? {
        if text.contains("Non-2xx or 3xx responses") || text.contains("Socket errors") { return nil }
        let lines = text.split(whereSeparator: \.isNewline)
        guard let rps = lines.lazy.compactMap({ value(after: "Requests/sec:", in: $0) }).first,
            let p99 = percentile(99, lines), let p50 = percentile(50, lines),
            let requests = lines.lazy.compactMap(requestCount).first
        else { return nil }
        return WrkResult(rps: Format.fixed(rps, 1), p99: Format.fixed(p99, 3), requests: requests, p50: Format.fixed(p50, 3))
    }

    /// `Requests/sec:   1234.56` → 1234.56.
    private static func value(after label: String, in line: Substring) -> Double? {
        let fields = line.split(whereSeparator: \.isWhitespace)
        guard fields.count == 2, fields[0] == label else { return nil }
        return decimal(fields[1])
    }

    /// A row of the latency distribution, `     99%    12.34ms`, in ms.
    private static func percentile(_ p: Int, _ lines: [Substring]) -> Double? {
        for line in lines where line.first?.isWhitespace == true {
            let fields = line.split(whereSeparator: \.isWhitespace)
            guard fields.count == 2, fields[0] == "\(p)%" else { continue }
            let text = fields[1]
            for (unit, factor) in [("us", 0.001), ("ms", 1.0), ("s", 1000.0)] where text.hasSuffix(unit) {
                guard let number = decimal(text.dropLast(unit.count)) else { return nil }
                return number * factor
            }
        }
        return nil
    }

    /// `  123456 requests in 10.00s, 12.34MB read` → 123456.
    private static func requestCount(_ line: Substring) -> Int? {
        let fields = line.split(whereSeparator: \.isWhitespace)
        guard fields.count > 2, fields[1] == "requests", fields[2] == "in" else { return nil }
        return Int(fields[0])
    }

    /// Digits and dots only (`[\d.]+`).
    private static func decimal(_ text: Substring) -> Double? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) else { return nil }
        return Double(text)
    }
}
