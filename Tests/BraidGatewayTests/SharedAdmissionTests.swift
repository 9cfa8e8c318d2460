import BraidContracts
import BraidDevSupport
@testable import BraidGateway
import BraidRedis
import BraidTestSupport
import Foundation
import Testing

/// ``PrecomputeAdmission`` with ``SharedSightings`` over a real Redis: sightings on different
/// gateways add up.
@Suite("Fleet-wide admission", .serialized, .integration)
struct SharedAdmissionTests {
    static func fleet(_ redis: RedisClient?, threshold: Int) -> [PrecomputeAdmission] {
        let keys = CacheKeys(prefix: "admission-\(UUID().uuidString.prefix(8))")
        return (0..<3).map { _ in
            PrecomputeAdmission(
                threshold: threshold, halvingSeconds: 600, sketchWidth: 1_024,
                shared: redis.map { SharedSightings(redis: $0, keys: keys, width: 1_024, halvingSeconds: 600) })
        }
    }

    @Test("A query seen once on each of three gateways counts three: the third sighting is admitted, wherever it is")
    func sightingsAddUpAcrossGateways() async throws {
        try await withRedisClient(try TestEnvironment.redisURL()) { (redis: RedisClient) async throws -> Void in
            let gateways = Self.fleet(redis, threshold: 3)
            #expect(await gateways[0].admit("popular\u{0}curry", kind: "query") == false)
            #expect(await gateways[1].admit("popular\u{0}curry", kind: "query") == false)
            #expect(await gateways[2].admit("popular\u{0}curry", kind: "query") == true)
            // Another query starts from nothing.
            #expect(await gateways[0].admit("popular\u{0}rice", kind: "query") == false)
            // Without the shared sketch each gateway has seen it once: nothing is admitted.
            let alone = Self.fleet(nil, threshold: 3)
            for gateway in alone { #expect(await gateway.admit("popular\u{0}curry", kind: "query") == false) }
        }
    }

    @Test("With Redis gone each gateway's own sketch decides")
    func redisGoneFallsBackToTheLocalSketch() async throws {
        try await RedisServerProcess.with { server in
            try await withRedisClient(server.url, commandTimeout: .milliseconds(300)) { (redis: RedisClient) async throws -> Void in
                let gateways = Self.fleet(redis, threshold: 2)
                #expect(await gateways[0].admit("popular\u{0}soup", kind: "query") == false)
                await server.stop()
                // This gateway's own count is 2 now; the fleet's cannot be read.
                #expect(await gateways[0].admit("popular\u{0}soup", kind: "query") == true)
                #expect(await gateways[1].admit("popular\u{0}soup", kind: "query") == false)
            }
        }
    }
}

@Suite("shared sightings")
struct SharedSightingsTests {
    @Test("Every gateway puts a key on the same counters, one per row, inside the row")
    func slotsAreStableAndInsideTheirRows() {
        let slots = SharedSightings.slots(of: "popular\u{0}curry", width: 1_024)
        #expect(slots == SharedSightings.slots(of: "popular\u{0}curry", width: 1_024))
        #expect(slots.count == SharedSightings.depth)
        for (row, slot) in slots.enumerated() { #expect((row * 1_024..<(row + 1) * 1_024).contains(slot)) }
        #expect(slots != SharedSightings.slots(of: "popular\u{0}rice", width: 1_024))
    }

    @Test("Periods are whole halving intervals of the wall clock")
    func periods() {
        #expect(SharedSightings.period(of: Date(timeIntervalSince1970: 1_199), halvingSeconds: 600) == 1)
        #expect(SharedSightings.period(of: Date(timeIntervalSince1970: 1_200), halvingSeconds: 600) == 2)
    }
}
