import BraidFaults
import BraidTestSupport
import Testing

/// The `primary-kill` fault scenario (`make faults`) at test scale: a primary of a private
/// Redis Cluster (cluster-node-timeout 1 s) SIGKILLed under a `braid gateway` serving
/// paginated sessions and a `braid worker` materializing a stream of requests. Pages of the
/// queries on its slots are degraded (live-only, never a 5xx) only until its replica is
/// promoted, then interleave again without a restart; worker writes that land in that window
/// are retried until they succeed, not dead-lettered.
@Suite("Redis Cluster failover end to end", .serialized, .integration)
struct ClusterFailoverTests {
    @Test func pagesDegradeOnlyWhileNoNodeServesTheSlotAndWritesAreRetried() async throws {
        var scenario = PrimaryKill()
        scenario.workers = ["w1"]
        scenario.shape = ClusterLoadShape(batches: 5, perBatch: 5, interval: .milliseconds(500), walkers: 1)
        scenario.killAfter = .milliseconds(1500)
        scenario.settle = .seconds(1)
        // Every page 1 asks Redis for its pointer: the window without a primary shows at once.
        scenario.gatewayEnvironment = ["BRAID_GATEWAY_POINTER_CACHE_MS": "0"]
        // 5 attempts from 50 ms: under a second in all, far shorter than a failover, so only
        // pausing on a failed probe of every primary saves the writes in the window.
        scenario.workerEnvironment = ["BRAID_WORKER_RETRY_BACKOFF_MS": "50"]
        let outcome = try await scenario.perform(on: try await FaultStack.integrationTier(documents: 300, users: 5))
        let result = scenario.result(of: outcome)
        let lines = result.printed(scenario: scenario.name).joined(separator: "\n")
        #expect(result.passed, "\(lines)\n\(outcome.problems.prefix(5).joined(separator: "\n"))")
        #expect(outcome.hotQueriesOnKilledPrimary >= 1)
        #expect(outcome.walk.degraded > 0, "the window without a primary for the killed node's slots was seen")
        #expect(outcome.walk.degradedWithSnapshotItems == 0, "a degraded page is live-only")
        #expect(outcome.walk.status5xx == 0 && outcome.walk.non200 == 0)
        #expect(outcome.interleavedAgainAfter != nil, "pages interleaved again after the failover")
        #expect(outcome.walk.sessionsWithDuplicates == 0 && outcome.walk.sessionsWithGaps == 0)
        #expect(outcome.lostRequests == 0, "every request materialized")
        #expect(outcome.deadLetters == 0, "nothing dead-lettered")
        // The window was met by the worker's writes, not only by the gateway's reads.
        #expect(
            outcome.workerLogs.contains { $0.contains("redis does not answer: pausing") || $0.contains("request failed, retrying") },
            "a write failed in the window")
        print(lines)
    }
}
