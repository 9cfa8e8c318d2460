import BraidContracts
import BraidCore
import BraidRedis

/// Publishes precompute requests at most once per cache key and ``window``, across every
/// gateway process: a Redis marker (`SET … NX EX`) is set first, and only the caller that
/// set it publishes. Misses and refresh-ahead of hot keys then cost one request, not one per
/// page.
public struct DeduplicatingPublisher: Sendable {
    public let publisher: RequestPublisher
    public let redis: RedisClient
    public let keys: CacheKeys
    /// How long a published request is not repeated: enough for a worker to materialize it,
    /// short enough that a lost request is asked for again soon.
    public let window: Duration

    public init(publisher: RequestPublisher, redis: RedisClient, keys: CacheKeys, window: Duration = .seconds(60)) {
        self.publisher = publisher
        self.redis = redis
        self.keys = keys
        self.window = window
    }

    /// Publishes `request` (without waiting for the broker) unless one for the same key went
    /// out within the window. The marker's value is `reason`, for people reading Redis.
    /// - Returns: whether this call published.
    /// - Throws: Redis or Kafka errors; a marker set before a failed publish stays, so the
    ///   request is asked for again once the window has passed.
    /// `marker` and `window` override the request's marker and the publisher's window (a
    /// refresh ahead of expiry has a marker of its own, so a recent miss's does not hold it
    /// back, and a window shorter than the content's lifetime).
    @discardableResult
    public func publish(_ request: PrecomputeRequest, reason: String, marker: String? = nil, window: Duration? = nil) async throws -> Bool {
        let seconds = max(1, Int((window ?? self.window).components.seconds))
        let first = try await redis.set(
            marker ?? keys.requestMarker(for: request), to: .string(reason), expiration: .seconds(seconds), condition: .ifNotExists)
        guard first else { return false }
        try await publisher.send(request)
        return true
    }
}
