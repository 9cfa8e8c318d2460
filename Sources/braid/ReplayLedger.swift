import BraidContracts
import BraidCore
import BraidKafka
import BraidRedis

/// Which dead letters `braid ops dlq replay` has republished: one Redis marker per dead
/// letter, keyed by its topic, partition and offset in the dead-letter topic, set only once
/// the broker acknowledged its replay. A replay interrupted between the acknowledgement and
/// the marker publishes that one letter again next time, which is harmless (processing is
/// idempotent); a replay is never recorded that did not happen.
struct ReplayLedger: Sendable {
    /// How long a marker is kept: longer than dead letters are normally kept around.
    static let markerSeconds = 30 * 86_400

    let redis: RedisClient
    let keys: CacheKeys

    func marker(of letter: DeadLetter) -> String {
        keys.replayMarker(topic: letter.message.topic, partition: letter.message.partition, offset: letter.message.offset)
    }

    /// Whether each letter was replayed before, in the same order (MGET in batches).
    func wasReplayed(_ letters: [DeadLetter]) async throws -> [Bool] {
        var result: [Bool] = []
        result.reserveCapacity(letters.count)
        for start in stride(from: 0, to: letters.count, by: 500) {
            let batch = letters[start..<min(start + 500, letters.count)]
            result += try await redis.mget(batch.map(marker)).map { $0 != nil }
        }
        return result
    }

    func recordReplay(of letter: DeadLetter) async throws {
        _ = try await redis.set(marker(of: letter), to: "1", expiration: .seconds(Self.markerSeconds))
    }
}
