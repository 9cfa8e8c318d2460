import BraidContracts
import BraidCore
import BraidRedis
import Foundation
import NIOCore

/// The console's experiment samples in Redis (``CacheKeys/ExperimentKeys/history``): one per
/// sampling interval, written by the first gateway to sample it (`HSETNX`), the oldest beyond
/// the console's `samples` dropped, so every gateway reads the same chart, across restarts.
public struct SharedExperimentHistory: Sendable {
    let redis: RedisClient
    let keys: CacheKeys

    public init(redis: RedisClient, keys: CacheKeys) {
        self.redis = redis
        self.keys = keys
    }

    /// Stores `sample` as its interval's unless another gateway has already stored one.
    func record(_ sample: ExperimentHistory.Sample, for experiment: String, interval: Duration, keep: Int) async throws {
        let seconds = max(0.001, interval.inSeconds)
        let slot = Int64((sample.at / seconds).rounded(.down))
        let json = try JSONEncoder().encode(sample)
        _ = try await redis.evalsha(
            Self.record, keys: [keys.experiment(experiment).history],
            arguments: [.integer(slot), .bytes(ByteBuffer(bytes: json)), .integer(Int64(max(1, keep)))])
    }

    /// The stored samples of `experiment`, oldest first.
    func samples(of experiment: String) async throws -> [ExperimentHistory.Sample] {
        let decoder = JSONDecoder()
        return try await redis.hgetall(keys.experiment(experiment).history).values
            .map { try decoder.decode(ExperimentHistory.Sample.self, from: Data($0.readableBytesView)) }
            .sorted { $0.at < $1.at }
    }

    /// KEYS[1] the history hash; ARGV slot, sample JSON, samples kept.
    static let record = RedisScript(
        """
        local added = redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
        local keep = tonumber(ARGV[3])
        if added == 1 and redis.call('HLEN', KEYS[1]) > keep then
          local slots = redis.call('HKEYS', KEYS[1])
          table.sort(slots, function(a, b) return tonumber(a) < tonumber(b) end)
          for i = 1, #slots - keep do redis.call('HDEL', KEYS[1], slots[i]) end
        end
        return added
        """)
}
