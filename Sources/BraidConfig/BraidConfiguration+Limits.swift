import BraidCore

extension BraidConfiguration {
    /// `gateway.rate_limits`: a token bucket per verified user (`per_identity`) and per client
    /// address (`per_address`, through `gateway.trusted_proxies`), shared by the gateways
    /// through Redis (`shared`) or kept by each gateway process.
    public struct RateLimitsSection: Codable, Sendable, Equatable {
        public var enabled = true
        /// Whether the buckets are fleet-wide (in Redis, taken in batches off the request path),
        /// so N gateways admit a caller's configured rate, not N times it. Off: each gateway
        /// keeps its own buckets.
        public var shared = true
        /// Requests of one verified user (`identity.mode` jwt or proxy).
        public var perIdentity = BucketSection(ratePerSecond: 20, burst: 40)
        /// Requests of one client address (an IPv6 client by its /64) without a verified user.
        /// Generous: many people can share one address (an office, a carrier's NAT).
        public var perAddress = BucketSection(ratePerSecond: 100, burst: 200)
        /// Callers tracked per process, each kind; past it new callers are admitted untracked
        /// (counted) until idle ones are swept.
        public var maxCallers = 100_000
        /// Whether callers whose address is loopback go unlimited. For `make run`, whose only
        /// caller is the person running it; off by default, since a gateway behind a proxy on the
        /// same host (without `gateway.trusted_proxies`) sees every caller as loopback. Refused
        /// when the gateway listens beyond loopback.
        public var exemptLoopback = false
        public init() {}
    }

    public struct BucketSection: Codable, Sendable, Equatable {
        public var ratePerSecond: Double
        public var burst: Int

        public init(ratePerSecond: Double, burst: Int) {
            self.ratePerSecond = ratePerSecond
            self.burst = burst
        }
    }

    /// `gateway.admission`: a miss earns a stored snapshot (a search query's B, a user's
    /// component) only once it has been seen `threshold` times lately; until then it is served live.
    public struct AdmissionSection: Codable, Sendable, Equatable {
        /// Misses of one key before it is computed and stored; 1 stores on the first miss.
        public var threshold = 2
        /// Counts halve this often: a key must be seen `threshold` times within about this long.
        @Seconds public var halving: Duration = .seconds(600)
        /// Counters per row of the sketch (4 rows of one byte each): 65,536 = 256 KiB.
        public var sketchWidth = 65_536
        /// Whether sightings are counted across the fleet (a sketch in Redis, recorded on a miss
        /// only); each gateway's own sketch decides when off, or while Redis fails.
        public var shared = true
        public init() {}

        enum CodingKeys: String, CodingKey {
            case threshold, halving = "halvingSeconds", sketchWidth, shared
        }
    }

    func validateLimits() throws(ConfigurationError) {
        func fail(_ message: String) -> ConfigurationError { ConfigurationError(message: message) }
        let limits = gateway.rateLimits
        for (key, bucket) in [("per_identity", limits.perIdentity), ("per_address", limits.perAddress)] {
            guard bucket.ratePerSecond > 0, bucket.ratePerSecond <= 1_000_000 else {
                throw fail("gateway.rate_limits.\(key).rate_per_second must be above 0 and at most 1000000")
            }
            guard (1...10_000_000).contains(bucket.burst) else { throw fail("gateway.rate_limits.\(key).burst must be 1-10000000") }
        }
        guard (1_000...10_000_000).contains(limits.maxCallers) else { throw fail("gateway.rate_limits.max_callers must be 1000-10000000") }
        let admission = gateway.admission
        guard (1...255).contains(admission.threshold) else { throw fail("gateway.admission.threshold must be 1-255 (1: every miss is stored)") }
        guard (Duration.seconds(1) ... .seconds(86_400)).contains(admission.halving) else { throw fail("gateway.admission.halving_seconds must be 1-86400") }
        guard (1_024...16_777_216).contains(admission.sketchWidth) else { throw fail("gateway.admission.sketch_width must be 1024-16777216") }
    }
}
