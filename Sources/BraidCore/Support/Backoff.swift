/// Exponential backoff: `initial` before the first retry, doubling after each further
/// failure up to `maximum`, optionally with jitter. One policy for the services' retry loops
/// (request retries, dead-letter publishing, a paused worker's probes), so they cannot drift
/// apart. BraidRedis, which depends on no Braid module, reconnects on the same schedule with
/// its own `RedisConfiguration.ReconnectBackoff`.
///
/// Pure: ``delay(beforeRetry:unitRandom:)`` takes the random draw as an argument, so a
/// schedule is unit-tested without sleeping.
public struct Backoff: Sendable, Hashable {
    public var initial: Duration
    public var maximum: Duration
    /// Share of each delay that is random, 0...1: a delay `d` becomes `d × (1 − jitter × r)`
    /// for a uniform `r` in 0...1. Processes that failed together then retry apart.
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
