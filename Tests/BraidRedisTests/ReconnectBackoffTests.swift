import BraidRedis
import Testing

@Suite("Reconnect backoff")
struct ReconnectBackoffTests {
    @Test func theDefaultDoublesFrom50MillisecondsToTwoSecondsAndJittersHalf() {
        let backoff = RedisConfiguration().reconnectBackoff
        let ceilings = (1...8).map { backoff.delay(beforeRetry: $0, unitRandom: 0) }
        #expect(ceilings == [50, 100, 200, 400, 800, 1_600, 2_000, 2_000].map { Duration.milliseconds($0) })
        #expect(backoff.delay(beforeRetry: 3, unitRandom: 1) == .milliseconds(100))
        #expect(backoff.delay(beforeRetry: 3, unitRandom: 0.5) == .milliseconds(150))
        for _ in 0..<200 {
            let delay = backoff.delay(beforeRetry: 7)
            #expect(delay >= .seconds(1) && delay <= .seconds(2))
        }
    }

    @Test func farRetriesNeitherOverflowNorPassTheMaximum() {
        let backoff = RedisConfiguration.ReconnectBackoff(initial: .milliseconds(100), maximum: .seconds(1))
        #expect(backoff.delay(beforeRetry: 10_000, unitRandom: 0.9) == .seconds(1))
        #expect(backoff.delay(beforeRetry: 0, unitRandom: 0) == .milliseconds(100))
        #expect(backoff.delay(beforeRetry: 2) == .milliseconds(200), "no jitter unless asked for")
    }

    @Test func outOfRangeSettingsAreClamped() {
        let backoff = RedisConfiguration.ReconnectBackoff(initial: .seconds(3), maximum: .seconds(1), jitter: 7)
        #expect(backoff.maximum == .seconds(3))
        #expect(backoff.jitter == 1)
        #expect(RedisConfiguration.ReconnectBackoff(initial: .milliseconds(-5), maximum: .zero, jitter: -1).delay(beforeRetry: 1) == .zero)
    }
}
