/// How often and how patiently a transient failure is retried before the request goes to
/// the dead-letter topic. Pure, so the schedule is unit-tested without sleeping.
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included.
    public var maxAttempts: Int
    /// Delay before the second attempt; doubles after each further failure.
    public var initialBackoff: Duration
    public var maximumBackoff: Duration

    public init(maxAttempts: Int = 5, initialBackoff: Duration = .milliseconds(200), maximumBackoff: Duration = .seconds(10)) {
        self.maxAttempts = max(1, maxAttempts)
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
    }

    /// The delay after failed attempt `attempt` (1-based), or nil when no attempt is left.
    public func delay(afterAttempt attempt: Int) -> Duration? {
        guard attempt < maxAttempts else { return nil }
        let doublings = min(max(0, attempt - 1), 30)
        return min(initialBackoff * (1 << doublings), maximumBackoff)
    }
}
