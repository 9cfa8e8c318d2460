/// The statistics the groups take over rounds (as Python's `statistics` computes them).
public enum Statistics {
    /// The middle value; the mean of the two middle values for an even count.
    public static func median(_ values: [Double]) -> Double {
        precondition(!values.isEmpty, "the median of no values")
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    public static func mean(_ values: [Double]) -> Double {
        precondition(!values.isEmpty, "the mean of no values")
        return values.reduce(0, +) / Double(values.count)
    }
}
