import BraidContracts
import BraidObservability
import BraidRedis
import Metrics
import Synchronization

/// The versions that Redis keys name (ranking pointers, components' stored versions), kept
/// in memory until Redis says the key changed (``RedisKeyTracker``). With them a page of a
/// cached ranking or a cached component costs no Redis round trip, and is no staler than
/// the invalidation's trip from Redis.
///
/// A read races its key's invalidation: Redis may answer with the old value while the
/// message saying it changed is already on its way on the tracking connection. So a reader
/// takes a ``Ticket`` before asking Redis, and ``remember(_:for:ticket:)`` keeps the answer
/// only if no invalidation of that key (or of everything) came in between. Per-key
/// precision at bounded memory: keys hash to stripes, and an invalidation bumps its stripe.
public final class TrackedVersions: RedisInvalidationObserver {
    /// What a reader holds between asking Redis and remembering the answer.
    public struct Ticket: Sendable {
        let generation: UInt64
        let stripe: Int
        let stripeCount: UInt64
    }

    private struct State {
        var versions: [String: Int64] = [:]
        var tracking = false
        /// Bumped by every flush.
        var generation: UInt64 = 0
        var stripes = [UInt64](repeating: 0, count: TrackedVersions.stripeCount)
    }

    static let stripeCount = 4_096
    /// Beyond this many keys the map starts over (each is one read away).
    static let maxEntries = 200_000
    private let state = Mutex(State())
    private let invalidations = Counter(.gatewayTrackingInvalidations)
    private let trackingGauge = Gauge(.gatewayTrackingActive)

    public init() {}

    /// Whether invalidations flow, so a remembered version is current.
    public var isTracking: Bool { state.withLock { $0.tracking } }

    /// The version `key` names, while tracking and since it was read; nil when Redis must be asked.
    public func version(for key: String) -> Int64? {
        state.withLock { $0.tracking ? $0.versions[key] : nil }
    }

    /// Take before asking Redis for `key`.
    public func ticket(for key: String) -> Ticket {
        let stripe = Self.stripe(of: key)
        return state.withLock { Ticket(generation: $0.generation, stripe: stripe, stripeCount: $0.stripes[stripe]) }
    }

    /// Keeps `version` as what `key` names, unless an invalidation of it (or a flush) came
    /// after `ticket` was taken, or tracking is off.
    public func remember(_ version: Int64, for key: String, ticket: Ticket) {
        state.withLock { state in
            guard state.tracking, state.generation == ticket.generation, state.stripes[ticket.stripe] == ticket.stripeCount else { return }
            if state.versions.count >= Self.maxEntries, state.versions[key] == nil { state.versions.removeAll(keepingCapacity: true) }
            state.versions[key] = version
        }
    }

    public func invalidate(keys: [String]) {
        state.withLock { state in
            for key in keys {
                state.stripes[Self.stripe(of: key)] &+= 1
                state.versions[key] = nil
            }
        }
        invalidations.increment(by: keys.count)
    }

    public func invalidateAll(tracking: Bool, reason: RedisKeyTracker.FlushReason) {
        state.withLock { state in
            state.versions.removeAll()
            state.generation &+= 1
            state.tracking = tracking
        }
        Counter(.gatewayTrackingFlushes, dimensions: [("reason", reason.rawValue)]).increment()
        trackingGauge.record(tracking ? 1 : 0)
    }

    static func stripe(of key: String) -> Int {
        Int(UInt(bitPattern: key.hashValue) % UInt(stripeCount))
    }
}
