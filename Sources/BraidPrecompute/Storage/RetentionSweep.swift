import BraidContracts
import BraidRedis
import Foundation

/// Deletes the records Braid keeps without a Redis TTL once their stored expiry has passed:
/// walk records and impression states (``CacheKeys/RetainedRecord``). They have no TTL because
/// neither can be recomputed, and the `volatile-lfu` policy Braid asks of Redis evicts only
/// keys that have one (docs/operations.md, "Redis memory").
public struct RetentionSweep: Sendable {
    public let redis: RedisClient
    public let keys: CacheKeys
    /// Seconds past a record's expiry before it is deleted: the clock of the gateway that
    /// checks a cursor's expiry and the sweeping worker's may differ by this much.
    public let grace: Int64

    public init(redis: RedisClient, keys: CacheKeys, grace: Int64 = Int64(ImpressionValidity.clockSkewToleranceSeconds)) {
        self.redis = redis
        self.keys = keys
        self.grace = grace
    }

    /// What one sweep did.
    public struct Outcome: Sendable, Hashable {
        /// Retained records looked at (a record may be counted twice when SCAN returns it twice).
        public var examined = 0
        /// Records deleted: expired, or a clicked set whose impression state is gone.
        public var deleted = 0
    }

    /// One pass over the key space (every primary of a cluster), deleting what expired
    /// before `now − grace`. Records written meanwhile are not harmed: the check and the
    /// delete are one script.
    public func sweep(now: Date = Date()) async throws -> Outcome {
        let cutoff = Int64(now.timeIntervalSince1970) - grace
        let pattern = String(RedisClient.globPattern(prefix: "\(keys.prefix):{").dropLast()) + "[we]*"
        var outcome = Outcome()
        try await redis.scanKeys(matching: pattern, count: 1_000) { found in
            // An impression's state and its clicked set name the same record.
            var records: [CacheKeys.RetainedRecord] = []
            var seen: Set<CacheKeys.RetainedRecord> = []
            for key in found { if let record = keys.retainedRecord(key), seen.insert(record).inserted { records.append(record) } }
            outcome.examined += records.count
            outcome.deleted += try await withThrowingTaskGroup(of: Bool.self) { group in
                var deleted = 0
                var next = records.makeIterator()
                func startNext() -> Bool {
                    guard let record = next.next() else { return false }
                    group.addTask { try await delete(record, expiredBy: cutoff) }
                    return true
                }
                for _ in 0..<16 where !startNext() { break }
                while let wasDeleted = try await group.next() {
                    if wasDeleted { deleted += 1 }
                    _ = startNext()
                }
                return deleted
            }
        }
        return outcome
    }

    private func delete(_ record: CacheKeys.RetainedRecord, expiredBy cutoff: Int64) async throws -> Bool {
        let reply = try await redis.evalsha(Self.deleteExpired, keys: record.keys, arguments: [.integer(cutoff)])
        guard case .integer(let deleted) = reply else { throw RedisUnexpectedReplyError(command: "EVALSHA", reply: reply) }
        return deleted > 0
    }

    /// KEYS[1] the record's hash (field `e`: expiry), KEYS[2] an impression's clicked set.
    /// ARGV[1] the cutoff. Deletes the record when `e` ≤ the cutoff, and a clicked set whose
    /// state is gone (its state written by an older Braid with a TTL that ran out). A state
    /// without `e` (an older Braid's, with a TTL) is left to its TTL.
    static let deleteExpired = RedisScript("""
        local e = redis.call('HGET', KEYS[1], 'e')
        if not e then
          if KEYS[2] and redis.call('EXISTS', KEYS[1]) == 0 then return redis.call('DEL', KEYS[2]) end
          return 0
        end
        if tonumber(e) > tonumber(ARGV[1]) then return 0 end
        return redis.call('DEL', unpack(KEYS))
        """)
}
