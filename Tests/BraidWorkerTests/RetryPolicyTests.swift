import BraidWorker
import Testing

/// The retry schedule of transient failures, without sleeping.
@Suite("Retry policy")
struct RetryPolicyTests {
    @Test func retriesWithDoublingDelaysUntilTheAttemptsAreUsedUp() {
        let policy = RetryPolicy(maxAttempts: 5, initialBackoff: .milliseconds(200), maximumBackoff: .seconds(1))
        let delays = (1...5).map { policy.delay(afterAttempt: $0) }
        #expect(delays == [.milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), nil])
    }

    @Test func oneAttemptMeansNoRetry() {
        #expect(RetryPolicy(maxAttempts: 1).delay(afterAttempt: 1) == nil)
        // Nonsense counts are one attempt, not none.
        #expect(RetryPolicy(maxAttempts: 0).maxAttempts == 1)
    }
}
