import BraidFaults
import BraidTestSupport
import Testing

/// The `rolling-restart` fault scenario (`make faults`) at test scale: three `braid gateway`
/// processes behind HAProxy, restarted one by one while sessions walk through the balancer; then
/// two `braid worker`s, restarted one by one while they materialize a stream of requests.
@Suite("Rolling restart of the gateways behind HAProxy", .serialized, .integration)
struct RollingRestartTests {
    @Test("Gateways restarted one by one behind the balancer: every answer a 200, each exits 0, walks across gateways stay exact; workers restarted one by one: no request lost, none processed twice")
    func noAnswerFailsAndWalksStayExact() async throws {
        var scenario = RollingRestart()
        scenario.pause = .seconds(2)
        scenario.walkers = 2
        scenario.requests = 800
        scenario.restartWorkersAt = 100
        let outcome = try await scenario.perform(on: try await FaultStack.integrationTier(documents: 1_000, users: 5))
        let result = scenario.result(of: outcome)
        let lines = result.printed(scenario: scenario.name).joined(separator: "\n")
        #expect(result.passed, "\(lines)\n\(outcome.failedPages.prefix(5).joined(separator: "\n"))\n\(outcome.walkProblems.prefix(5).joined(separator: "\n"))")
        #expect(outcome.walk.sessions >= 10 && outcome.walk.pages >= 50, "enough walking to cross the restarts: \(lines)")
        #expect(outcome.snapshots == 800 && outcome.processed == 800 && outcome.workersWithoutTally == 0, "\(lines)")
        print(lines)
    }
}
