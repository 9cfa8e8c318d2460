import BraidContracts
import BraidCore
import BraidHarness
import BraidRedis
import BraidDevSupport
import Foundation

/// The setting of the Redis Cluster scenarios (`reshard`, `primary-kill`): a cluster of
/// their own (3 primaries + 3 replicas), workers and a gateway on it with
/// `redis.cluster_nodes` naming every node, snapshots of 8 hot queries, and the load: walkers
/// paginating sessions over the hot queries while `braid publish` sends a batch every second
/// (new queries, and a refresh of every hot query: a new snapshot version under the sessions).
struct ClusterLoad: Sendable {
    typealias Shape = ClusterLoadShape

    static let hotQueries = ["curry", "pasta", "salmon", "cake", "soup", "bread", "tomato", "egg"]

    let world: ScenarioWorld
    let cluster: RedisCluster
    let fixture: WorkerFixture
    let gateway: BraidService
    /// Worker processes by name.
    let workers: [String]

    /// Starts the cluster, the workers (4 s apart) and the gateway, and asks page 1 of every
    /// hot query once, so that the gateway computes their snapshots.
    static func start(
        _ world: ScenarioWorld, nodeTimeout: Duration = .milliseconds(2000), workers: [String] = ["w1", "w2"],
        workerEnvironment: [String: String] = [:], gatewayEnvironment: [String: String] = [:]
    ) async throws -> ClusterLoad {
        let cluster = try await RedisCluster.start(in: world.run, name: world.name, nodeTimeout: nodeTimeout)
        var configured = try await world.fixture(redisURL: cluster.urls[0], clusterNodes: cluster.urls)
        configured.overrides.merge(workerEnvironment) { $1 }
        let fixture = configured
        // The gateway starts while the workers join.
        async let starting = fixture.startGateway(environment: gatewayEnvironment)
        _ = try await fixture.startWorkers(workers)
        let gateway = try await starting
        for query in hotQueries {
            let status = try? await HTTPProbe.request("\(gateway.baseURL)/v1/search?q=\(query)&per_page=10").status
            guard status == 200 else { throw HarnessError.failed("warm-up page for '\(query)' failed (\(status.map(String.init) ?? "no answer"))") }
        }
        return ClusterLoad(world: world, cluster: cluster, fixture: fixture, gateway: gateway, workers: workers)
    }

    /// The slot of the current snapshot pointer of a hot query; throws when it has none.
    func snapshotSlot(of query: String, redis: RedisClient) async throws -> Int {
        let pointer = CacheKeys(prefix: fixture.keyPrefix).ranking("featured", query: query).pointer
        guard try await redis.send(["EXISTS", .string(pointer)]) == .integer(1) else {
            throw HarnessError.failed("no snapshot of '\(query)' after its first page")
        }
        return RedisHashSlot.slot(of: pointer)
    }

    /// Starts walkers over the hot queries (for at most 2 minutes).
    func walk(_ shape: Shape) -> SessionWalker.Walk {
        var walker = SessionWalker(baseURL: gateway.baseURL, queries: Self.hotQueries)
        walker.walkers = shape.walkers
        return walker.start(for: .seconds(120))
    }

    /// Publishes the stream: each batch written just before it is sent, so its requested_at
    /// is newer than the snapshots it refreshes. Returns whether every `braid publish` exited 0.
    func publishStream(_ prefix: String, _ shape: Shape) async throws -> Bool {
        var published = true
        for batch in 0..<shape.batches {
            let queries = (batch * shape.perBatch..<(batch + 1) * shape.perBatch).map { "\(prefix) \($0)" } + Self.hotQueries
            if try await fixture.publish(WorkerFixture.rankingRequests(queries), as: "batch").status != 0 { published = false }
            try await Task.sleep(for: shape.interval)
        }
        return published
    }

    /// Waits for every snapshot of the stream (2 minutes at most) and returns how many are
    /// missing. Through a client of its own, which reads the cluster's map as it is now.
    func lostRequests(_ shape: Shape) async throws -> Int {
        try await fixture.withRedis { [fixture] redis in
            if try await fixture.waitForSnapshots(shape.requests, in: redis, timeout: .seconds(120)) { return 0 }
            return shape.requests - (try await fixture.snapshotsEventually(in: redis))
        }
    }

    /// The first few problems the walkers met, for the log of a failed scenario.
    static func diagnose(_ report: SessionWalker.Report, into result: inout FaultResult) {
        for problem in report.problems.prefix(5) { result.diagnose("  walk: \(problem)") }
    }
}

/// How much load the Redis Cluster scenarios make: `batches` batches of `perBatch` new
/// queries plus a refresh of every hot query, `interval` apart, and `walkers` session walkers.
public struct ClusterLoadShape: Sendable {
    public var batches = 20
    public var perBatch = 50
    public var interval: Duration = .seconds(1)
    public var walkers = 2

    public init(batches: Int = 20, perBatch: Int = 50, interval: Duration = .seconds(1), walkers: Int = 2) {
        self.batches = batches
        self.perBatch = perBatch
        self.interval = interval
        self.walkers = walkers
    }

    /// Distinct snapshots the stream asks for (new queries and the hot ones).
    public var requests: Int { batches * perBatch + ClusterLoad.hotQueries.count }
}
