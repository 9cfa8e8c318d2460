/// Sums of counters in the Prometheus text format, read as an awk one-liner reads them: the
/// first whitespace-separated field names the sample, the second is its value.
enum PrometheusText {
    /// The sum of every sample whose name is `metric`, with or without labels.
    static func sum(_ metric: String, in text: String) -> Double {
        samples(in: text).filter { $0.name == metric || $0.name.hasPrefix(metric + "{") }.reduce(0) { $0 + $1.value }
    }

    /// The sum of every sample whose name is exactly `metric` (no labels).
    static func sumUnlabelled(_ metric: String, in text: String) -> Double {
        samples(in: text).filter { $0.name == metric }.reduce(0) { $0 + $1.value }
    }

    /// The sum of every sample whose name starts with `prefix` (`/^prefix/` in awk).
    static func sum(prefix: String, in text: String) -> Double {
        samples(in: text).filter { $0.name.hasPrefix(prefix) }.reduce(0) { $0 + $1.value }
    }

    private static func samples(in text: String) -> [(name: Substring, value: Double)] {
        text.split(whereSeparator: \.isNewline).compactMap { line in
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count > 1, let value = Double(fields[1]) else { return nil }
            return (fields[0], value)
        }
    }
}
