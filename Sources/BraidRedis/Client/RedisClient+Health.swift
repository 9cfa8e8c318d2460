/// Whether Redis serves every key right now, for callers that must tell an outage from a
/// failure of their own (the worker's Redis probe).
extension RedisClient {
    /// Returns when every key can be served now; throws the reason otherwise. Standalone: a
    /// PING. In a cluster: the slot map covers all 16384 slots and each of its primaries
    /// answers a PING of its own. A plain ``ping()`` reaches one primary only, so it
    /// answers while a dead primary's slots are unserved during a failover.
    public func pingEveryPrimary(timeout: Duration? = nil) async throws {
        guard isCluster else { return try await ping() }
        let primaries = primaries()
        guard !primaries.isEmpty else { throw RedisConnectionError(.unavailable, "no cluster slot map yet") }
        if let coverage = clusterCoverage, coverage < RedisHashSlot.count {
            throw RedisConnectionError(.unavailable, "the cluster serves \(coverage) of \(RedisHashSlot.count) slots")
        }
        for primary in primaries {
            _ = try await send(["PING"], node: primary, timeout: timeout)
        }
    }
}
