import BraidHarness
import BraidDevSupport
import Foundation

/// `broker-freeze`: 2 workers and a gateway with `miss_policy: async`; the broker gets
/// SIGSTOP for 10 s. While it is frozen, page 1 of 200 new queries is asked through the
/// gateway (each miss publishes a request through its producer) and `braid publish` sends 500
/// more requests from 4 s into the freeze; then SIGCONT. Passes when every page was a 200,
/// `braid publish` exited 0, and all 700 snapshots exist within 180 s of the thaw.
public struct BrokerFreeze: FaultScenario {
    public let name = "broker-freeze"
    public var freeze: Duration = .seconds(10)
    /// Distinct queries asked through the gateway during the freeze.
    public var pageQueries = 200
    /// Requests `braid publish` sends during the freeze.
    public var published = 500
    public var publishAfter: Duration = .seconds(4)
    public var deadline: Duration = .seconds(180)

    public init() {}

    public func run(on stack: FaultStack) async throws -> FaultResult {
        try await ScenarioWorld.with(stack, scenario: name) { world in
            let fixture = try await world.fixture()
            _ = try await fixture.startWorkers(["w1", "w2"])
            let gateway = try await fixture.startGateway(environment: ["BRAID_INTERLEAVING_MISS_POLICY": "async"])
            let requests = WorkerFixture.rankingRequests((0..<published).map { "published during the freeze \($0)" })
            let load = PageLoad(baseURL: gateway.baseURL, prefix: "asked during the freeze", count: pageQueries, errors: world.file("freeze-pages.err"))

            kill(stack.brokerPID, SIGSTOP)
            let frozenAt = ContinuousClock.now
            let (pages, publish, resumedAt) = try await Self.thawing(stack.brokerPID) {
                async let pages = load.run(for: freeze)
                try await Task.sleep(for: publishAfter)
                async let publish = fixture.publish(requests, as: "freeze")
                try await Task.sleep(until: frozenAt + freeze)
                kill(stack.brokerPID, SIGCONT)
                let resumedAt = ContinuousClock.now
                return (await pages, try await publish, resumedAt)
            }

            var measured = FaultResult()
            measured.figure("pages_during_freeze", pages.pages)
            measured.figure("non_200_pages", pages.non200)
            measured.figure("publish", publish.lastLine)
            let expected = pageQueries + published
            let deadline = deadline
            return try await fixture.withRedis { [measured] redis in
                var result = measured
                if try await fixture.waitForSnapshots(expected, in: redis, timeout: deadline) {
                    result.figure("seconds_to_materialize_backlog_after_resume", Seconds.whole(.now - resumedAt))
                    result.figure("snapshots", try await fixture.snapshots(in: redis))
                    result.verdict(pages.non200 == 0 && publish.status == 0, "non-200 pages \(pages.non200), publish exit \(publish.status)")
                } else {
                    let found = try await fixture.snapshots(in: redis)
                    result.figure("snapshots", found)
                    result.verdict(false, "only \(found) of \(expected) snapshots within \(deadline.components.seconds) s after the broker resumed")
                }
                return result
            }
        }
    }

    /// Runs `body`, which thaws the broker; thaws it anyway when `body` throws, so that a
    /// failed scenario does not leave the others a frozen broker.
    private static func thawing<T: Sendable>(_ pid: pid_t, _ body: () async throws -> T) async rethrows -> T {
        do {
            return try await body()
        } catch {
            kill(pid, SIGCONT)
            throw error
        }
    }
}
