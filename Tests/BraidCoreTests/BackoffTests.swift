import BraidCore
import Testing

@Suite("Backoff")
struct BackoffTests {
    @Test func doublesFromTheInitialDelayUpToTheMaximum() {
        let backoff = Backoff(initial: .milliseconds(100), maximum: .seconds(1))
        let delays = (1...6).map { backoff.delay(beforeRetry: $0, unitRandom: 0.7) }
        #expect(delays == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1)])
        // Far retries neither overflow nor pass the maximum.
        #expect(backoff.delay(beforeRetry: 10_000, unitRandom: 0) == .seconds(1))
        #expect(backoff.delay(beforeRetry: 0, unitRandom: 0) == .milliseconds(100))
    }

    @Test func jitterTakesOffAtMostItsShareOfEachDelay() {
        let backoff = Backoff(initial: .milliseconds(100), maximum: .seconds(2), jitter: 0.5)
        #expect(backoff.delay(beforeRetry: 2, unitRandom: 0) == .milliseconds(200))
        #expect(backoff.delay(beforeRetry: 2, unitRandom: 1) == .milliseconds(100))
        #expect(backoff.delay(beforeRetry: 2, unitRandom: 0.5) == .milliseconds(150))
        for _ in 0..<200 {
            let delay = backoff.delay(beforeRetry: 3)
            #expect(delay >= .milliseconds(200) && delay <= .milliseconds(400))
        }
    }

    @Test func outOfRangeSettingsAreClamped() {
        let backoff = Backoff(initial: .seconds(3), maximum: .seconds(1), jitter: 7)
        #expect(backoff.maximum == .seconds(3))
        #expect(backoff.jitter == 1)
    }
}
