import BraidContracts
import BraidCore
import BraidObservability
import BraidRedis
import Foundation
import Metrics

/// A missed snapshot computed once across the fleet, with a lease as memcache's are: the
/// gateway that sets the ranking's lease key (`SET … NX PX ttl`) computes; a gateway that
/// finds it set waits up to `wait` for the snapshot to appear and otherwise serves the page
/// live-only. The lease expires after `ttl` (longer than a computation takes at a million
/// documents), so a holder that dies blocks nobody longer; its holder deletes it when done,
/// only if it is still its own.
///
/// Counted in `braid_gateway_snapshot_leases_total{outcome}`: `taken` (a computation),
/// `waited` (a page waited for another gateway's), `expired` (a wait found the lease gone and
/// no snapshot: its holder died or failed), `live_only` (a wait ran out).
public struct SnapshotLease: Sendable {
    public enum Outcome: String, Sendable {
        /// This gateway computed the snapshot.
        case computed
        /// Another gateway's snapshot appeared while this one waited.
        case waited
        /// None appeared within the wait: serve live-only.
        case liveOnly
    }

    let redis: RedisClient
    let keys: CacheKeys
    public let ttl: Duration
    public let wait: Duration
    /// How often a waiting page looks for the snapshot.
    let poll: Duration

    public init(redis: RedisClient, keys: CacheKeys, ttl: Duration, wait: Duration, poll: Duration = .milliseconds(20)) {
        self.redis = redis
        self.keys = keys
        self.ttl = ttl
        self.wait = wait
        self.poll = poll
    }

    /// Runs `compute` if this gateway gets the lease on `ranking`/`query`'s snapshot, else waits
    /// for the holder's snapshot; says which happened.
    public func run(ranking: String, query: String, _ compute: @Sendable () async throws -> Void) async throws -> Outcome {
        let keys = keys.ranking(ranking, query: query)
        let token = UUID().uuidString
        let clock = ContinuousClock()
        let deadline = clock.now + wait
        var waited = false
        while true {
            if try await redis.set(keys.lease, to: .string(token), expiration: .milliseconds(Int(ttl.wholeMilliseconds)), condition: .ifNotExists) {
                // The page missed before another gateway stored the snapshot and let its lease go:
                // the lease is free, the work is done (memcache's leases check again too).
                if try await storedSnapshotExists(keys) {
                    await release(keys.lease, token: token)
                    return .waited
                }
                Self.count("taken")
                do {
                    try await compute()
                } catch {
                    await release(keys.lease, token: token)
                    throw error
                }
                await release(keys.lease, token: token)
                return .computed
            }
            if !waited {
                waited = true
                Self.count("waited")
            }
            // Wait for the holder's snapshot, or for its lease to go (then take it: nobody computes).
            while true {
                guard clock.now + poll <= deadline else {
                    Self.count("live_only")
                    return .liveOnly
                }
                try await Task.sleep(for: poll)
                let values = try await redis.mget([keys.pointer, keys.lease])
                if values[0] != nil { return .waited }
                if values[1] == nil {
                    Self.count("expired")
                    break
                }
            }
        }
    }

    /// Whether the pointer names a version that is stored (a pointer whose version was evicted
    /// is a miss to compute again).
    private func storedSnapshotExists(_ keys: CacheKeys.RankingKeys) async throws -> Bool {
        guard let pointer = try await redis.getString(keys.pointer), let version = Int64(pointer) else { return false }
        return try await redis.mget([keys.version(version)])[0] != nil
    }

    /// Deletes the lease if it is still `token`'s (it may have expired and been taken by
    /// another gateway while this one computed: that one's is left alone).
    private func release(_ lease: String, token: String) async {
        _ = try? await redis.evalsha(Self.release, keys: [lease], arguments: [.string(token)])
    }

    static func count(_ outcome: String) {
        Counter(.gatewaySnapshotLeases, dimensions: [("outcome", outcome)]).increment()
    }

    static let release = RedisScript(
        """
        if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
        return 0
        """)
}
