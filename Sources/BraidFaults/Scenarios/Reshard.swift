import BraidHarness
import BraidDevSupport
import Foundation

/// `reshard`: slots move between the primaries of a Redis Cluster of its own while the gateway
/// serves paginated sessions and workers materialize a stream of requests (``ClusterLoad``).
/// First the slot of each hot query's snapshot moves by hand, held half moved for a second
/// (ASK and TRYAGAIN under load); then `redis-cli --cluster reshard` moves 2,000 more slots.
/// Passes when every page was a 200, no session had a duplicate or a gap, sessions
/// interleaved, every request was materialized, and nothing was dead-lettered.
public struct Reshard: FaultScenario {
    public let name = "reshard"
    public var shape = ClusterLoadShape()
    public var slotsByRedisCLI = 2_000
    public var halfMoved: Duration = .seconds(1)

    public init() {}

    public func run(on stack: FaultStack) async throws -> FaultResult {
        try await ScenarioWorld.with(stack, scenario: name) { world in
            let load = try await ClusterLoad.start(world)
            let (shape, slotsByRedisCLI, halfMoved) = (shape, slotsByRedisCLI, halfMoved)
            return try await RedisClusterAdmin.with(nodes: load.cluster.nodes) { admin in
                try await load.fixture.withRedis { redis in
                    let primaries = try await admin.primaries()
                    guard primaries.count >= 2 else { throw HarnessError.failed("the cluster has \(primaries.count) primaries") }
                    // Where the hot snapshots live.
                    var owners: [Int: String] = [:]
                    for query in ClusterLoad.hotQueries {
                        let slot = try await load.snapshotSlot(of: query, redis: redis)
                        owners[slot] = try await admin.owner(ofSlot: slot, asSeenBy: primaries[0])
                    }

                    let walk = load.walk(shape)
                    async let published = load.publishStream("moved stream", shape)
                    try await Task.sleep(for: .seconds(3))
                    var result = FaultResult()
                    for (slot, source) in owners.sorted(by: { $0.key < $1.key }) {
                        let target = primaries.first { $0 != source }!
                        try await SlotMoves.move(slot, from: source, to: target, pause: halfMoved, admin: admin)
                    }
                    result.figure("slots_moved_by_hand", owners.count)
                    guard try await SlotMoves.waitUntilAgreed(via: primaries[0], timeout: .seconds(20)) else {
                        throw HarnessError.failed("the cluster did not agree on the slots after the moves by hand")
                    }
                    let reshardStarted = ContinuousClock.now
                    try await SlotMoves.reshard(
                        slots: slotsByRedisCLI, from: primaries[0], to: primaries[1], admin: admin, log: world.file("reshard-redis-cli.log"))
                    result.figure("slots_moved_by_redis_cli", slotsByRedisCLI)
                    result.figure("seconds_for_redis_cli_reshard", Seconds.whole(.now - reshardStarted))

                    let publishedAll = try await published
                    try await Task.sleep(for: .seconds(2))  // sessions after the last move
                    let report = await walk.finish()
                    let lost = try await load.lostRequests(shape)
                    let dead = try await load.fixture.deadLetters()
                    let totals = report.totals
                    result.figure("pages", totals.pages)
                    result.figure("non_200_pages", totals.non200)
                    result.figure("degraded_pages", totals.degraded)
                    result.figure("sessions", totals.sessions)
                    result.figure("interleaved_sessions", totals.interleavedSessions)
                    result.figure("sessions_with_duplicates", totals.sessionsWithDuplicates)
                    result.figure("sessions_with_gaps", totals.sessionsWithGaps)
                    result.figure("requests", shape.requests)
                    result.figure("lost_requests", lost)
                    result.figure("dead_lettered", dead)
                    let passed = totals.non200 == 0 && totals.sessionsWithDuplicates == 0 && totals.sessionsWithGaps == 0
                        && totals.interleavedSessions > 0 && lost == 0 && dead == 0 && publishedAll
                    result.verdict(passed, "see the figures above (publish exit \(publishedAll ? 0 : 1))")
                    if !passed { ClusterLoad.diagnose(report, into: &result) }
                    return result
                }
            }
        }
    }
}
