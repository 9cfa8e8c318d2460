import BraidContracts
import BraidDevSupport
@testable import BraidGateway
import BraidRedis
import BraidTestSupport
import Foundation
import Testing

/// ``ExperimentHistory`` with ``SharedExperimentHistory`` over a real Redis: the console's
/// chart is the same on every gateway and survives a restart.
@Suite("Shared console history", .serialized, .integration)
struct SharedExperimentHistoryTests {
    static func sample(at: Double, impressions: Int) throws -> ExperimentHistory.Sample {
        let json = #"{"at":\#(at),"impressions":\#(impressions),"wins_a":1,"wins_b":2,"ties":0,"delta":0.1,"ci_lower":-0.2,"ci_upper":0.4,"p_value":0.5}"#
        return try JSONDecoder().decode(ExperimentHistory.Sample.self, from: Data(json.utf8))
    }

    @Test("Samples taken by one gateway are drawn by another and by a restarted one; one per interval, the oldest beyond the bound dropped")
    func sameChartEverywhere() async throws {
        try await withRedisClient(try TestEnvironment.redisURL()) { (redis: RedisClient) async throws -> Void in
            let shared = SharedExperimentHistory(redis: redis, keys: CacheKeys(prefix: "history-\(UUID().uuidString.prefix(8))"))
            func gateway() -> ExperimentHistory {
                ExperimentHistory(experiments: ["draft"], samples: 3, interval: .seconds(5), shared: shared)
            }
            let (a, b) = (gateway(), gateway())
            try await a.record(Self.sample(at: 1_000, impressions: 10), for: "draft")
            // The same interval sampled by another gateway: the first sample stands.
            try await b.record(Self.sample(at: 1_002, impressions: 11), for: "draft")
            try await b.record(Self.sample(at: 1_005, impressions: 12), for: "draft")
            #expect(await a.samples(of: "draft")?.map(\.impressions) == [10, 12])
            #expect(await b.samples(of: "draft")?.map(\.impressions) == [10, 12])
            try await a.record(Self.sample(at: 1_010, impressions: 13), for: "draft")
            try await a.record(Self.sample(at: 1_015, impressions: 14), for: "draft")
            // A gateway started now draws the last three intervals.
            #expect(await gateway().samples(of: "draft")?.map(\.impressions) == [12, 13, 14])
            #expect(await gateway().samples(of: "other") == nil)
        }
    }
}
