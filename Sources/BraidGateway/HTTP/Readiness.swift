import BraidRedis
import BraidSources

/// `/readyz`: whether Redis and the live backend answer, each within a short deadline.
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

    public init(redis: RedisClient, source: any SearchSource, timeout: Duration = .seconds(1)) {
        self.redis = redis
        self.source = source
        self.timeout = timeout
    }

    public func check() async -> Report {
        async let redisCheck = Self.probe(timeout) { [redis] in try await redis.ping() }
        async let liveCheck = Self.probe(timeout) { [source] in _ = try await source.search(SearchRequest(query: "readyz", size: 0)) }
        let checks = ["redis": await redisCheck, "live": await liveCheck]
        return Report(status: checks.values.allSatisfy { $0 == "ok" } ? .ok : .unavailable, checks: checks)
    }

    static func probe(_ timeout: Duration, _ operation: @escaping @Sendable () async throws -> Void) async -> String {
        do {
            try await Deadline.run(timeout: timeout, operation)
            return "ok"
        } catch is DeadlineExceeded {
            return "timeout"
        } catch {
            return "\(error)"
        }
    }
}
