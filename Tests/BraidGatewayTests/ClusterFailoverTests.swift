import BraidConfig
import BraidCore
import BraidGateway
import BraidKafka
import BraidPrecompute
import BraidRedis
import BraidTestSupport
import BraidWiring
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// A primary of a private Redis Cluster (cluster-node-timeout 1 s) SIGKILLed under a gateway
/// and a `braid worker`: pages of the queries on its slots are degraded (live-only, never a
/// 5xx) only until its replica is promoted, then interleave again without a restart; worker
/// writes that land in that window are retried until they succeed, not dead-lettered.
@Suite("Redis Cluster failover end to end", .serialized, .integration)
struct ClusterFailoverTests {
    static let queries = ["curry", "pasta", "salmon", "cake", "soup", "bread", "tomato", "egg"]

    @Test func pagesDegradeOnlyWhileNoNodeServesTheSlotAndWritesAreRetried() async throws {
        try await RedisClusterProcess.with(nodeTimeout: .milliseconds(1000)) { cluster in
            let fixture = try await WorkerFixture(partitions: 3, documents: 300, users: 5, redis: .cluster, clusterURLs: cluster.urls)
            var configuration = GatewayHarness.configuration(fixture)
            configuration.gateway.pointerCacheMs = 0  // every page 1 asks Redis: the window shows at once
            // The worker's defaults (5 attempts from 50 ms in the fixture: under a second in
            // all) are far shorter than a failover, so only pausing on a failed probe saves them.
            let worker = try await fixture.startWorker("failover")
            defer { worker.signal(SIGTERM) }
            try await fixture.waitUntilAssigned("failover")
            try await GatewayHarness.with(configuration) { [configuration] client, gateway in
                let redis = gateway.redis
                let keys = configuration.redis.cacheKeys
                for query in Self.queries {
                    #expect(try await client.json("/v1/search?q=\(query)&per_page=6&session=warm").status == 200)
                }
                let victim = try #require(redis.node(forKey: keys.ranking("featured", query: "curry").pointer))
                let doomed = Self.queries.filter { redis.node(forKey: keys.ranking("featured", query: $0).pointer) == victim }
                try await RedisClusterAdmin.with(nodes: cluster.nodes) { admin in
                    // The snapshots reached the replica before the crash.
                    let replica = try await admin.syncedReplica(of: victim.description)
                    try await admin.run(replica, ["READONLY"])
                    for query in doomed {
                        try await eventually("\(query)'s snapshot on the replica", within: .seconds(5)) {
                            try await admin.run(replica, ["EXISTS", .string(keys.ranking("featured", query: query).pointer)]) == .integer(1)
                        }
                    }
                }

                try cluster.kill(port: victim.port)
                let killed = ContinuousClock.now
                // Refreshes of the snapshots on the dead primary: the worker writes them in the window.
                let refreshes = doomed.map { PrecomputeRequest(body: .ranking(.init(ranking: "featured", query: $0, size: 7))) }
                let publisher = RequestPublisher(producer: gateway.producer, topic: fixture.requestsTopic)
                for request in refreshes { try await publisher.send(request) }

                var pages = 0, degraded = 0
                var recoveredAfter: Duration?
                while ContinuousClock.now - killed < .seconds(30) {
                    let page = try await client.json("/v1/search?q=curry&per_page=6&session=f\(pages)")
                    pages += 1
                    #expect(page.status == 200, "\(page.object)")
                    let items = page["items"] as? [[String: Any]] ?? []
                    if page["degraded"] as? Bool == true {
                        degraded += 1
                        #expect(items.allSatisfy { $0["team"] as? String == "A" }, "a degraded page is live-only")
                    } else if degraded > 0, (page["interleaving"] as? [String: Any])?["snapshot"] as? NSNumber != nil {
                        #expect(items.contains { $0["team"] as? String == "B" }, "interleaved again")
                        recoveredAfter = ContinuousClock.now - killed
                        break
                    }
                    try await Task.sleep(for: .milliseconds(50))
                }
                #expect(degraded > 0, "the window without a primary for curry's slot was seen")
                let recovery = try #require(recoveredAfter, "pages did not interleave again within 30 s of the kill")
                #expect(!redis.primaries().contains(victim), "the replica was promoted")

                let store = PrecomputeStore(redis: redis, keys: keys)
                for request in refreshes {
                    try await eventually("the refresh written in the window", within: .seconds(30)) {
                        try await FailoverChecks.isMaterialized(request, in: store)
                    }
                }
                #expect(try await FailoverChecks.deadLetterCount(fixture) == 0, "nothing dead-lettered")
                let log = (try? fixture.log(of: "failover")) ?? ""
                #expect(log.contains("redis does not answer: pausing") || log.contains("request failed, retrying"), "a write failed in the window")
                print("cluster failover: \(degraded) of \(pages) pages degraded; interleaved again \(recovery) after SIGKILL; \(refreshes.count) refreshes in the window, none dead-lettered")
            }
        }
    }
}

/// What the failover test asks of Redis and Kafka after the fact.
enum FailoverChecks {
    static func isMaterialized(_ request: PrecomputeRequest, in store: PrecomputeStore) async throws -> Bool {
        guard case .ranking(let target) = request.body else { return false }
        return try await store.currentVersion(ranking: target.ranking, query: target.query) == RankingSnapshot.version(for: request.requestedAt)
    }

    static func deadLetterCount(_ fixture: WorkerFixture) async throws -> Int64 {
        try await KafkaAdmin(brokers: fixture.brokers).lag(group: TestEnvironment.uniqueName("count"), topic: fixture.deadLetterTopic)
            .reduce(0) { $0 + $1.highWatermark }
    }
}

/// Polls `condition` every 100 ms until it holds; throws after `timeout`.
private func eventually(_ what: String, within timeout: Duration, _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw ChildProcessError(description: "\(what): not within \(timeout)") }
        try await Task.sleep(for: .milliseconds(100))
    }
}
