import BraidContracts
import BraidCore
import BraidDevSupport
@testable import BraidGateway
import BraidRedis
import BraidTestSupport
import Foundation
import HTTPTypes
import Testing

/// ``RateLimiter`` with a ``SharedRateBudget`` each, as three gateways have, over a real Redis
/// of the test's own: one caller spread over them is admitted one rate, not three.
@Suite("Fleet-wide rate limits", .serialized, .integration)
struct FleetRateLimitTests {
    static let limit = TokenBuckets<String>.Limit(ratePerSecond: 20, burst: 10)

    /// Offers `perSecond` requests of one caller, round robin over `limiters`, for `seconds`;
    /// returns how many were admitted. Paced on a thread of its own: the figures are the
    /// limiter's, not how late a busy cooperative pool (other tests run beside this one) wakes a
    /// sleeping task.
    static func offer(_ caller: RateLimiter.Caller, to limiters: [RateLimiter], perSecond: Double, seconds: Double) async throws -> Int {
        try await runOffPool {
            let clock = ContinuousClock()
            let start = clock.now
            var admitted = 0
            var sent = 0
            while clock.now - start < .seconds(seconds) {
                do {
                    try limiters[sent % limiters.count].take(caller)
                    admitted += 1
                } catch {
                    #expect((error as? GatewayError)?.status == .tooManyRequests)
                }
                sent += 1
                // Paced by the schedule, not by the last sleep: a late wake-up is caught up.
                let wait = (start + .seconds(Double(sent) / perSecond)) - clock.now
                if wait > .zero { Thread.sleep(forTimeInterval: wait.inSeconds) }
            }
            return admitted
        }
    }

    static func withFleet<T: Sendable>(
        _ redis: RedisClient, gateways: Int, shared: Bool, _ body: @Sendable ([RateLimiter]) async throws -> T
    ) async throws -> T {
        // One key prefix per fleet, so a second fleet in the same Redis starts with full buckets.
        let keys = CacheKeys(prefix: "fleet-\(UUID().uuidString.prefix(8))")
        let fleet = (0..<gateways).map { _ in
            SharedRateBudget(redis: redis, keys: keys, perIdentity: limit, perAddress: limit, maxCallers: 1_000)
        }
        let limiters = fleet.map { RateLimiter(perIdentity: limit, perAddress: limit, maxCallers: 1_000, shared: shared ? $0 : nil) }
        return try await withThrowingTaskGroup(of: Void.self) { group in
            for budget in fleet { group.addTask { try await budget.run() } }
            defer { group.cancelAll() }
            return try await body(limiters)
        }
    }

    @Test("Three gateways offered 3× the rate by one user admit at most 1.25 × (rate × T + burst); each alone would admit about three times that")
    func oneRateAcrossThreeGateways() async throws {
        try await withRedisClient(try TestEnvironment.redisURL()) { (redis: RedisClient) async throws -> Void in
            let seconds = 6.0
            let allowed = Self.limit.ratePerSecond * seconds + Self.limit.burst
            let shared = try await Self.withFleet(redis, gateways: 3, shared: true) { limiters in
                try await Self.offer(.identity("user-1"), to: limiters, perSecond: 3 * Self.limit.ratePerSecond, seconds: seconds)
            }
            #expect(Double(shared) <= 1.25 * allowed, "admitted \(shared) of \(allowed)")
            #expect(Double(shared) >= 0.75 * allowed, "admitted \(shared) of \(allowed): the shared budget starves the caller")
            let alone = try await Self.withFleet(redis, gateways: 3, shared: false) { limiters in
                try await Self.offer(.identity("user-1"), to: limiters, perSecond: 3 * Self.limit.ratePerSecond, seconds: seconds)
            }
            #expect(Double(alone) > 1.5 * allowed, "without sharing: \(alone) of \(allowed)")
        }
    }

    @Test("With Redis gone the gateways fail open to their own buckets: a caller is still admitted at each gateway's rate")
    func redisGoneFailsOpenToLocalBuckets() async throws {
        try await RedisServerProcess.with { server in
            try await withRedisClient(server.url, commandTimeout: .milliseconds(500)) { (redis: RedisClient) async throws -> Void in
                try await Self.withFleet(redis, gateways: 3, shared: true) { limiters in
                    let before = try await Self.offer(.address("192.0.2.7"), to: limiters, perSecond: 60, seconds: 1)
                    #expect(before <= 40, "admitted \(before) in a second with Redis up")
                    await server.stop()
                    // Until a refill fails (within the patience, a second) requests wait on the
                    // grant; then each gateway's bucket decides alone.
                    _ = try await Self.offer(.address("192.0.2.7"), to: limiters, perSecond: 60, seconds: 1.5)
                    let after = try await Self.offer(.address("192.0.2.7"), to: limiters, perSecond: 60, seconds: 2)
                    #expect(after >= 100, "admitted \(after) of 120 in two seconds with Redis gone: not open")
                }
            }
        }
    }
}
