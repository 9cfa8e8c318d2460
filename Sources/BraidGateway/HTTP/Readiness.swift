import BraidRedis
import BraidSources
import Logging
import Synchronization

/// `/readyz`: whether Redis and the live backend answer, each within a short deadline. Each
/// check reports `ok`, `timeout` or `unavailable`; what failed and where goes to the log,
/// not to whoever asks (the route is public: load balancers probe it). A stopping gateway
/// answers `unavailable` with `shutdown: draining` while it drains (``ReadinessDrain``).
public struct Readiness: Sendable {
    public struct Report: Sendable, Encodable, Equatable {
        public enum Status: String, Sendable, Encodable {
            case ok
            case unavailable
        }

        public var status: Status
        public var checks: [String: String]
    }

    /// Set once the gateway is stopping (``ReadinessDrain``): `/readyz` answers 503 from then on.
    public final class Draining: Sendable {
        private let flag = Atomic<Bool>(false)
        public init() {}
        public var isDraining: Bool { flag.load(ordering: .relaxed) }
        func begin() { flag.store(true, ordering: .relaxed) }
    }

    let redis: RedisClient
    let source: any SearchSource
    let timeout: Duration
    public let draining = Draining()
    /// The layout experiments' design check; nil when there are none.
    let layoutDesigns: LayoutDesignClaim.Status?
    let logger: Logger

    public init(
        redis: RedisClient, source: any SearchSource, timeout: Duration = .seconds(1), layoutDesigns: LayoutDesignClaim.Status? = nil,
        logger: Logger = Logger(label: "braid.gateway.readyz")
    ) {
        self.layoutDesigns = layoutDesigns
        self.redis = redis
        self.source = source
        self.timeout = timeout
        self.logger = logger
    }

    public func check() async -> Report {
        // Nothing else matters to a balancer once the gateway is on its way out.
        if draining.isDraining { return Report(status: .unavailable, checks: ["shutdown": "draining"]) }
        async let redisCheck = Self.probe(timeout, "redis", logger) { [redis] in try await redis.ping() }
        async let liveCheck = Self.probe(timeout, "live", logger) { [source] in _ = try await source.search(SearchRequest(query: "readyz", size: 0)) }
        var checks = ["redis": await redisCheck, "live": await liveCheck]
        if let layoutDesigns { checks["layout_experiments"] = layoutDesigns.isClaimed ? "ok" : "unavailable" }
        return Report(status: checks.values.allSatisfy { $0 == "ok" } ? .ok : .unavailable, checks: checks)
    }

    static func probe(_ timeout: Duration, _ name: String, _ logger: Logger, _ operation: @escaping @Sendable () async throws -> Void) async -> String {
        do {
            try await Deadline.run(timeout: timeout, operation)
            return "ok"
        } catch is DeadlineExceeded {
            logger.warning("readiness check timed out", metadata: ["check": "\(name)"])
            return "timeout"
        } catch {
            logger.warning("readiness check failed", metadata: ["check": "\(name)", "error": "\(error)"])
            return "unavailable"
        }
    }
}
