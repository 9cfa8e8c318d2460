import BraidCore
import BraidPrecompute
import BraidRedis
import BraidContracts

extension PrecomputeStore {
    /// How long dead-letter markers are kept: longer than any redelivery takes.
    static let deadLetterMarkerSeconds = 7 * 86_400

    /// Whether this message was dead-lettered already (by a worker that crashed before
    /// committing its offset).
    public func wasDeadLettered(topic: String, partition: Int32, offset: Int64) async throws -> Bool {
        try await redis.get(keys.deadLetterMarker(topic: topic, partition: partition, offset: offset)) != nil
    }

    public func markDeadLettered(topic: String, partition: Int32, offset: Int64) async throws {
        try await redis.set(
            keys.deadLetterMarker(topic: topic, partition: partition, offset: offset), to: "1",
            expiration: .seconds(Self.deadLetterMarkerSeconds))
    }
}
