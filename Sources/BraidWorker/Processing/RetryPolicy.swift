import BraidCore

/// How often and how patiently a transient failure is retried before the request goes to
/// the dead-letter topic. Pure, so the schedule is unit-tested without sleeping
/// (`RetryPolicyTests`).
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included.
    public var maxAttempts: Int
    /// Delay before the second attempt, doubling after each further failure.
    public var backoff: Backoff

    public init(maxAttempts: Int = 5, initialBackoff: Duration = .milliseconds(200), maximumBackoff: Duration = .seconds(10)) {
        self.maxAttempts = max(1, maxAttempts)
        self.backoff = Backoff(initial: initialBackoff, maximum: maximumBackoff)
    }

    /// The delay after failed attempt `attempt` (1-based), or nil when no attempt is left.
    public func delay(afterAttempt attempt: Int) -> Duration? {
        guard attempt < maxAttempts else { return nil }
        return backoff.delay(beforeRetry: attempt)
    }
}
