extension RedisConfiguration {
    /// Exponential backoff between reconnect attempts: `initial` before the first retry,
    /// doubling after each further failure up to `maximum`, with jitter so a fleet of
    /// processes does not reconnect in lockstep after a Redis restart. The schedule of
    /// BraidCore's `Backoff`, kept here so the Redis client depends on no Braid module.
    ///
    /// Pure: ``delay(beforeRetry:unitRandom:)`` takes the random draw as an argument, so a
    /// schedule is unit-tested without sleeping.
    public struct ReconnectBackoff: Sendable, Hashable {
        public var initial: Duration
        public var maximum: Duration
        /// Share of each delay that is random, 0...1: a delay `d` becomes `d × (1 − jitter × r)`
        /// for a uniform `r` in 0...1.
        public var jitter: Double

        public init(initial: Duration, maximum: Duration, jitter: Double = 0) {
            self.initial = max(initial, .zero)
            self.maximum = max(maximum, self.initial)
            self.jitter = min(max(jitter, 0), 1)
        }

        /// The delay before retry number `retry` (1 is the first retry); `unitRandom` in 0...1.
        public func delay(beforeRetry retry: Int, unitRandom: Double) -> Duration {
            let doublings = min(max(0, retry - 1), 30)
            let base = min(initial * (1 << doublings), maximum)
            guard jitter > 0 else { return base }
            return base * (1 - jitter * min(max(unitRandom, 0), 1))
        }

        /// The delay before retry number `retry`, jittered with the system's random numbers.
        public func delay(beforeRetry retry: Int) -> Duration {
            delay(beforeRetry: retry, unitRandom: jitter > 0 ? Double.random(in: 0...1) : 0)
        }
    }
}
