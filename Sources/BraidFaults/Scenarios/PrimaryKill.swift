import BraidHarness
import BraidRedis
import BraidDevSupport
import Foundation

/// `primary-kill`: the primary serving the first hot query's snapshot, in a Redis Cluster of
/// its own (cluster-node-timeout 1 s), gets SIGKILL while the gateway serves paginated
/// sessions and workers materialize a stream of requests (``ClusterLoad``); its replica takes
/// over. Passes when no page was a non-200 (pages on the dead primary's slots are degraded,
/// live-only), pages interleave again after the failover without a restart, every request
/// was materialized and nothing was dead-lettered (the workers' writes in the window are
/// retried).
///
/// `ClusterFailoverTests` runs it small (one worker, a shorter stream, no pointer cache in
/// the gateway, so that the window shows at once) and checks its ``Outcome``.
public struct PrimaryKill: FaultScenario {
    public let name = "primary-kill"
    public var shape = ClusterLoadShape()
    public var workers = ["w1", "w2"]
    /// Time from the start of the load to the kill.
    public var killAfter: Duration = .seconds(5)
    public var nodeTimeout: Duration = .milliseconds(1000)
    /// How long the walkers go on after the stream and the promotion.
    public var settle: Duration = .seconds(2)
    /// `BRAID_*` overrides for the gateway.
    public var gatewayEnvironment: [String: String] = [:]
    /// `BRAID_*` overrides for the workers.
    public var workerEnvironment: [String: String] = [:]

    public init() {}

    /// What happened.
    public struct Outcome: Sendable {
        /// Hot queries whose snapshots the kill took away until the failover.
        public var hotQueriesOnKilledPrimary: Int
        /// From the kill until another node served the slot (polled every 0.1 s).
        public var promotedAfter: Duration
        public var walk: SessionWalker.Totals
        /// From the kill until the first page that interleaved after the last degraded one;
        /// nil when none did.
        public var interleavedAgainAfter: Duration?
        public var requests: Int
        public var lostRequests: Int
        public var deadLetters: Int
        /// Whether every `braid publish` of the stream exited 0.
        public var published: Bool
        /// The workers' logs.
        public var workerLogs: [String]
        public var problems: [String]
    }

    public func run(on stack: FaultStack) async throws -> FaultResult {
        result(of: try await perform(on: stack))
    }

    public func result(of outcome: Outcome) -> FaultResult {
        var result = FaultResult()
        result.figure("hot_queries_on_killed_primary", outcome.hotQueriesOnKilledPrimary)
        result.figure("seconds_until_replica_promoted", Seconds.tenths(outcome.promotedAfter))
        result.figure("pages", outcome.walk.pages)
        result.figure("degraded_pages", outcome.walk.degraded)
        result.figure("seconds_until_interleaved_again", outcome.interleavedAgainAfter.map(Seconds.tenths) ?? "never")
        result.figure("status_5xx", outcome.walk.status5xx)
        result.figure("non_200_pages", outcome.walk.non200)
        result.figure("sessions", outcome.walk.sessions)
        result.figure("sessions_with_duplicates", outcome.walk.sessionsWithDuplicates)
        result.figure("sessions_with_gaps", outcome.walk.sessionsWithGaps)
        result.figure("requests", outcome.requests)
        result.figure("lost_requests", outcome.lostRequests)
        result.figure("dead_lettered", outcome.deadLetters)
        let passed = outcome.walk.non200 == 0 && outcome.lostRequests == 0 && outcome.deadLetters == 0 && outcome.published
            && outcome.interleavedAgainAfter != nil
        result.verdict(passed, "see the figures above (publish exit \(outcome.published ? 0 : 1))")
        if !passed { outcome.problems.prefix(5).forEach { result.diagnose("  walk: \($0)") } }
        return result
    }

    public func perform(on stack: FaultStack) async throws -> Outcome {
        try await ScenarioWorld.with(stack, scenario: name) { world in
            let load = try await ClusterLoad.start(
                world, nodeTimeout: nodeTimeout, workers: workers, workerEnvironment: workerEnvironment, gatewayEnvironment: gatewayEnvironment)
            let (shape, killAfter, settle) = (shape, killAfter, settle)
            return try await RedisClusterAdmin.with(nodes: load.cluster.nodes) { admin in
                try await load.fixture.withRedis { redis in
                    let primaries = try await admin.primaries()
                    let slot = try await load.snapshotSlot(of: ClusterLoad.hotQueries[0], redis: redis)
                    let victim = try await admin.owner(ofSlot: slot, asSeenBy: primaries[0])
                    var onVictim = 0
                    for query in ClusterLoad.hotQueries {
                        let owner = try await admin.owner(ofSlot: load.snapshotSlot(of: query, redis: redis), asSeenBy: primaries[0])
                        if owner == victim { onVictim += 1 }
                    }
                    // Its replica is in sync before the crash.
                    _ = try await admin.syncedReplica(of: victim)
                    guard let port = RedisEndpoint(victim)?.port, let witness = primaries.first(where: { $0 != victim }) else {
                        throw HarnessError.failed("no other primary than \(victim) among \(primaries)")
                    }

                    let walk = load.walk(shape)
                    async let published = load.publishStream("killed primary stream", shape)
                    try await Task.sleep(for: killAfter)
                    let killedAt = ContinuousClock.now
                    load.cluster.kill(port: port)
                    // The replica's promotion, as another primary sees it.
                    var promotedAfter: Duration?
                    for _ in 0..<300 {
                        if let owner = try? await admin.owner(ofSlot: slot, asSeenBy: witness), owner != victim {
                            promotedAfter = .now - killedAt
                            break
                        }
                        try await Task.sleep(for: .milliseconds(100))
                    }
                    guard let promotedAfter else { throw HarnessError.failed("no replica took over slot \(slot) within 30 s") }

                    let publishedAll = try await published
                    try await Task.sleep(for: settle)
                    let report = await walk.finish()
                    // The first interleaved page after the last degraded one (counted from the kill).
                    let lastDegraded = report.visits.filter(\.degraded).map(\.at).max() ?? killedAt
                    let recovered = report.visits.first { $0.at > lastDegraded && !$0.degraded && $0.snapshot != nil }
                    return Outcome(
                        hotQueriesOnKilledPrimary: onVictim, promotedAfter: promotedAfter, walk: report.totals,
                        interleavedAgainAfter: recovered.map { $0.at - killedAt }, requests: shape.requests,
                        lostRequests: try await load.lostRequests(shape), deadLetters: try await load.fixture.deadLetters(),
                        published: publishedAll, workerLogs: load.workers.map { (try? load.fixture.log(of: $0)) ?? "" }, problems: report.problems)
                }
            }
        }
    }
}
