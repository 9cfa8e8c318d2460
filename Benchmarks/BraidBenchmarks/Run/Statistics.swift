/// The statistics the groups take over rounds (as Python's `statistics` computes them).
public enum Statistics {
    /// The middle value; the mean of the two middle values for an even count.
    public static func median(_ values: [Double]) -> Double {
        precondition(!values.isEmpty, "the median of no values")
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The nearest-rank percentile: the smallest value with at least `percent` % of the values
    /// at or below it (p99 of 200 values is the 198th smallest).
    public static func percentile(_ values: [Double], _ percent: Double) -> Double {
        precondition(!values.isEmpty, "a percentile of no values")
        let sorted = values.sorted()
        let rank = Int((percent / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(sorted.count, max(1, rank)) - 1]
    }

    public static func mean(_ values: [Double]) -> Double {
        precondition(!values.isEmpty, "the mean of no values")
        return values.reduce(0, +) / Double(values.count)
    }
}
