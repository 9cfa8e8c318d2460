/// Conversions at the edges, where a `Duration` meets a wire format, a clock or a rate.
extension Duration {
    /// The duration in whole milliseconds, rounded towards zero.
    public var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000 + attoseconds / 1_000_000_000_000_000
    }

    /// The duration in whole seconds, rounded towards zero.
    public var wholeSeconds: Int64 { components.seconds }

    /// The duration in seconds, as a `Double` (for `Date` arithmetic and rates).
    public var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
