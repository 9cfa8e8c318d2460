import BraidRedis
import BraidSources
import Logging

/// `/readyz`: whether Redis and the live backend answer, each within a short deadline. Each
/// check reports `ok`, `timeout` or `unavailable`; what failed and where goes to the log,
/// not to whoever asks (the route is public: load balancers probe it).
public struct Readiness: Sendable {
    public struct Report: Sendable, Encodable, Equatable {
        public enum Status: String, Sendable, Encodable {
            case ok
            case unavailable
        }

        public var status: Status
        public var checks: [String: String]
    }

    let redis: RedisClient
    let source: any SearchSource
    let timeout: Duration
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
