import BraidContracts
import BraidObservability
import BraidRedis
import Foundation
import Logging
import Metrics
import ServiceLifecycle

/// What a Redis `maxmemory-policy` means for Braid's keys. Braid keeps what it cannot recompute
/// without a TTL (walk records, impression states, experiment counters, layout users) and what it
/// can with one (snapshots, components, markers, leases, rate buckets, admission sketches), so a
/// `volatile-*` policy evicts only the recomputable (docs/operations.md, "Redis memory").
public enum EvictionPolicy: Sendable, Hashable {
    /// `volatile-lfu` (Braid's choice: hot snapshots stay), `-lru`, `-random`, `-ttl`.
    case volatile(String)
    /// Writes fail once full: precompute and walk records stop, pages fall back to live reads.
    case noEviction
    /// `allkeys-*`: walks, impression states and experiment counters may be evicted.
    case allKeys(String)

    public init(_ name: String) {
        if name.hasPrefix("volatile-") { self = .volatile(name) }
        else if name.hasPrefix("allkeys-") { self = .allKeys(name) }
        else { self = .noEviction }
    }

    /// Whether Redis may evict a key Braid cannot recompute.
    public var losesRetainedKeys: Bool {
        if case .allKeys = self { return true }
        return false
    }

    /// The operator's warning, or nil for a `volatile-*` policy.
    public var warning: String? {
        switch self {
        case .volatile: nil
        case .noEviction:
            "Redis maxmemory-policy is noeviction: when Redis is full every write fails (snapshots, walk records, experiment credit); "
                + "set volatile-lfu so that snapshots and components make room (Deploy/redis/braid-redis.conf)"
        case .allKeys(let name):
            "Redis maxmemory-policy is \(name): eviction may take walk records, impression states and experiment counters, "
                + "which cannot be recomputed; set volatile-lfu (Deploy/redis/braid-redis.conf)"
        }
    }

    /// `maxmemory_policy` from an `INFO memory` reply.
    public static func parse(info: String) -> EvictionPolicy? {
        for line in info.split(whereSeparator: \.isNewline) where line.hasPrefix("maxmemory_policy:") {
            return EvictionPolicy(String(line.dropFirst("maxmemory_policy:".count)).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }
}

/// Reads each primary's eviction policy every `interval` (it can be changed at run time), logs a
/// warning when one is not `volatile-*`, and sets `braid_redis_eviction_policy_unsafe` (1 when a
/// policy may evict what Braid cannot recompute). Where `INFO` is refused (the ACL Braid
/// recommends has `-@dangerous`), it says so once and watches no more.
public struct EvictionPolicyWatch: Service {
    let redis: RedisClient
    let interval: Duration
    let logger: Logger

    public init(redis: RedisClient, interval: Duration = .seconds(60), logger: Logger) {
        self.redis = redis
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            var reported: [String: String] = [:]
            while !Task.isCancelled {
                guard await check(reported: &reported) else { return }
                try? await Task.sleep(for: interval)
            }
        }
    }

    /// One look at every primary; false when Redis refuses `INFO` (no point asking again).
    func check(reported: inout [String: String]) async -> Bool {
        var unsafe = false
        for node in redis.primaries() {
            let name = "\(node)"
            do {
                let reply = try await redis.send(["INFO", "memory"], node: node)
                guard let info = reply.string, let policy = EvictionPolicy.parse(info: info) else { continue }
                unsafe = unsafe || policy.losesRetainedKeys
                let said = policy.warning ?? "ok"
                if reported[name] != said {
                    reported[name] = said
                    if let warning = policy.warning { logger.warning("\(warning)", metadata: ["redis": "\(name)"]) }
                }
            } catch let error as RedisServerError {
                logger.info(
                    "cannot read Redis's maxmemory-policy; Braid needs volatile-lfu (docs/operations.md)",
                    metadata: ["redis": "\(name)", "error": "\(error.message)"])
                return false
            } catch {
                continue
            }
        }
        Gauge(.redisEvictionPolicyUnsafe).record(unsafe ? 1 : 0)
        return true
    }
}
