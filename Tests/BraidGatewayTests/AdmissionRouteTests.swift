import BraidConfig
import BraidCore
import BraidGateway
import BraidRedis
import BraidTestSupport
import BraidWiring
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import BraidContracts

/// `gateway.admission` on a real gateway, Redis and broker: a miss earns a stored snapshot
/// (or a worker request) only once it has been seen `threshold` times.
@Suite("Admission for precompute", .serialized, .integration)
struct AdmissionRouteTests {
    @Test("A query's first miss is live-only and stores nothing; its second is computed and stored; punctuation reads the same snapshot")
    func searchQueries() async throws {
        let fixture = try await WorkerFixture(documents: 200, users: 5)
        var configuration = GatewayHarness.configuration(fixture)
        configuration.gateway.admission.threshold = 2
        configuration.interleaving.arms = [.init(name: "ab", weight: 100)]
        try await GatewayHarness.with(configuration) { [configuration] client, gateway in
            let pointer = configuration.redis.cacheKeys.ranking(configuration.interleaving.ranking, query: "rice").pointer
            let first = try await client.json("/v1/search?q=rice&per_page=5")
            #expect(first.status == 200, "\(first.object)")
            #expect((first["interleaving"] as? [String: Any])?["snapshot"] as? Int == nil, "a query seen once must be live-only")
            #expect(first["degraded"] as? Bool == false)
            #expect(try await gateway.redis.get(pointer) == nil, "a query seen once must store nothing")

            let second = try await client.json("/v1/search?q=rice&per_page=5")
            let version = (second["interleaving"] as? [String: Any])?["snapshot"] as? Int
            #expect(version != nil, "the second miss must be computed and stored: \(second.object)")
            #expect(try await gateway.redis.get(pointer) != nil)

            // `Rice!!` normalises to `rice`: the stored snapshot, no new key.
            let punctuated = try await client.json("/v1/search?q=\(encoded("Rice!!"))&per_page=5")
            #expect((punctuated["interleaving"] as? [String: Any])?["snapshot"] as? Int == version)
        }
    }

    @Test("A made-up user's component miss requests nothing from the workers until it is seen again")
    func userComponents() async throws {
        let fixture = try await WorkerFixture(documents: 200, users: 5)
        var configuration = GatewayHarness.configuration(fixture)
        configuration.gateway.admission.threshold = 2
        try await GatewayHarness.with(configuration) { [configuration] client, gateway in
            let marker = configuration.redis.cacheKeys.componentRequestMarker(
                feed: "home", type: .recommendedRecipes, scope: ComponentScope(user: "made-up-7"))
            let first = try await client.json("/v1/feeds/home/components/recommended?user=made-up-7")
            #expect(first.status == 200, "\(first.object)")
            #expect(first["source"] as? String == "live")
            #expect(try await gateway.redis.get(marker) == nil, "a user seen once must not be requested from the workers")
            let second = try await client.json("/v1/feeds/home/components/recommended?user=made-up-7")
            #expect(second["source"] as? String == "live")
            #expect(try await gateway.redis.get(marker) != nil, "a user seen twice is requested")
        }
    }
}
