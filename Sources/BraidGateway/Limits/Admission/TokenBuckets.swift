/// Token buckets, one per caller, in a table of bounded size (pure logic: the caller passes
/// the time, in seconds on any monotonic clock).
///
/// A caller's bucket holds up to `burst` tokens and refills at `ratePerSecond`; a request
/// takes one token or is refused with the time until one is back.
///
/// Memory: at most `capacity` buckets (some 100 bytes each with their key). When the table is
/// full and a new caller arrives, buckets that have refilled to `burst` (idle callers: such
/// a bucket is indistinguishable from a new one, so dropping it forgets nothing) are swept
/// out, at most once a second. When nothing could be swept, the new caller is not tracked:
/// its request is admitted and reported as ``Decision/untracked`` (the gateway counts it),
/// so a table filled by a flood of addresses fails open rather than refusing everyone new.
public struct TokenBuckets<Key: Hashable & Sendable>: Sendable {
    public struct Limit: Sendable, Equatable {
        public var ratePerSecond: Double
        public var burst: Double

        public init(ratePerSecond: Double, burst: Double) {
            self.ratePerSecond = ratePerSecond
            self.burst = burst
        }
    }

    public enum Decision: Sendable, Equatable {
        case admitted
        /// Refused; a token is back after this many seconds (> 0).
        case rejected(retryAfter: Double)
        /// Admitted without a bucket: the table was full of active callers.
        case untracked
    }

    struct Bucket {
        var tokens: Double
        var updated: Double
    }

    public let limit: Limit
    public let capacity: Int
    private var buckets: [Key: Bucket] = [:]
    private var lastSweep = -Double.infinity

    public init(limit: Limit, capacity: Int) {
        self.limit = limit
        self.capacity = max(1, capacity)
    }

    /// Callers tracked now.
    public var count: Int { buckets.count }

    /// Takes one token from `key`'s bucket at time `now`.
    public mutating func take(_ key: Key, now: Double) -> Decision {
        if var bucket = buckets[key] {
            refill(&bucket, now: now)
            defer { buckets[key] = bucket }
            guard bucket.tokens >= 1 else { return .rejected(retryAfter: (1 - bucket.tokens) / limit.ratePerSecond) }
            bucket.tokens -= 1
            return .admitted
        }
        if buckets.count >= capacity {
            guard now - lastSweep >= 1 else { return .untracked }
            lastSweep = now
            sweep(now: now)
            guard buckets.count < capacity else { return .untracked }
        }
        buckets[key] = Bucket(tokens: limit.burst - 1, updated: now)
        return .admitted
    }

    private func refill(_ bucket: inout Bucket, now: Double) {
        let elapsed = max(0, now - bucket.updated)
        bucket.tokens = min(limit.burst, bucket.tokens + elapsed * limit.ratePerSecond)
        bucket.updated = max(bucket.updated, now)
    }

    /// Drops every bucket that has refilled to `burst`.
    mutating func sweep(now: Double) {
        let limit = limit
        buckets = buckets.filter { _, bucket in bucket.tokens + max(0, now - bucket.updated) * limit.ratePerSecond < limit.burst }
    }
}
