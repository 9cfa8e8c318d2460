/// Exponential backoff with full jitter (a uniform wait between zero and the current ceiling,
/// which doubles from `initial` up to `maximum`), so that many apps retrying after one outage
/// do not come back in step. A `Retry-After` from the gateway is a floor.
struct Backoff: Sendable {
    let initial: Duration
    let maximum: Duration
    private(set) var failures = 0

    init(initial: Duration, maximum: Duration) {
        precondition(initial > .zero && maximum >= initial, "backoff needs 0 < initial <= maximum")
        self.initial = initial
        self.maximum = maximum
    }

    /// The ceiling of the next wait: `initial · 2^failures`, at most `maximum`.
    var ceiling: Duration {
        let factor = 1 << min(failures, 30)
        return initial * factor > maximum ? maximum : initial * factor
    }

    /// The wait before the next attempt after one more failure; `unit` is a random number in
    /// [0, 1) (a parameter so the logic is testable).
    mutating func delay(retryAfter: Duration? = nil, unit: Double = Double.random(in: 0..<1)) -> Duration {
        let jittered = ceiling * unit
        failures += 1
        guard let retryAfter else { return jittered }
        return max(jittered, retryAfter)
    }

    mutating func reset() { failures = 0 }
}
