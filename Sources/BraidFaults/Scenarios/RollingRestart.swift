import BraidHarness
import BraidDevSupport
import Foundation

/// `rolling-restart`: three gateways behind HAProxy (health-checked on `/readyz`, each stopping
/// with a drain the balancer notices), restarted one after the other while sessions walk their
/// pages through the balancer (each page of a walk may be served by another gateway) and page-1
/// requests come one after the other. Passes when every answer was a 200, every stopped gateway
/// exited 0, and no walk showed a document twice or skipped a position.
public struct RollingRestart: FaultScenario {
    public let name = "rolling-restart"
    public var gateways = 3
    /// Load before the first restart, between restarts, and after the last.
    public var pause: Duration = .seconds(3)
    public var walkers = 4
    /// `BRAID_*` overrides of the gateways.
    public var gatewayEnvironment: [String: String] = [:]

    public init() {}

    static let queries = ["curry", "pasta", "salmon", "cake", "soup", "bread", "tomato", "egg"]

    /// What happened.
    public struct Outcome: Sendable {
        /// In restart order.
        public var restarts: [GatewayFleet.Restart]
        public var walk: SessionWalker.Totals
        /// Page-1 requests and those that were not 200 (with what they were).
        public var pages: Int
        public var failedPages: [String]
        public var walkProblems: [String]
    }

    public func run(on stack: FaultStack) async throws -> FaultResult {
        result(of: try await perform(on: stack))
    }

    public func result(of outcome: Outcome) -> FaultResult {
        var result = FaultResult()
        result.figure("gateways_restarted", outcome.restarts.count)
        result.figure("gateways_exited_0", outcome.restarts.filter { $0.status == 0 }.count)
        result.figure("seconds_to_stop", outcome.restarts.map { Seconds.tenths($0.stopping) }.joined(separator: ","))
        result.figure("seconds_to_start", outcome.restarts.map { Seconds.tenths($0.starting) }.joined(separator: ","))
        result.figure("pages", outcome.pages + outcome.walk.pages)
        result.figure("non_2xx", outcome.failedPages.count + outcome.walk.non200)
        result.figure("sessions", outcome.walk.sessions)
        result.figure("interleaved_sessions", outcome.walk.interleavedSessions)
        result.figure("sessions_with_duplicates", outcome.walk.sessionsWithDuplicates)
        result.figure("sessions_with_gaps", outcome.walk.sessionsWithGaps)
        for line in (outcome.failedPages + outcome.walkProblems).prefix(10) { result.diagnose(line) }
        result.verdict(problems(of: outcome).isEmpty, problems(of: outcome).joined(separator: "; "))
        return result
    }

    public func problems(of outcome: Outcome) -> [String] {
        [
            outcome.failedPages.count + outcome.walk.non200 > 0 ? "\(outcome.failedPages.count + outcome.walk.non200) answers were not 200" : nil,
            outcome.restarts.count == gateways && outcome.restarts.allSatisfy({ $0.status == 0 })
                ? nil : "a gateway did not exit 0: \(outcome.restarts.map(\.status))",
            outcome.walk.sessionsWithDuplicates > 0 ? "\(outcome.walk.sessionsWithDuplicates) walks showed a document twice" : nil,
            outcome.walk.sessionsWithGaps > 0 ? "\(outcome.walk.sessionsWithGaps) walks skipped a position" : nil,
            outcome.walk.interleavedSessions == 0 ? "no walk was interleaved" : nil,
        ].compactMap { $0 }
    }

    public func perform(on stack: FaultStack) async throws -> Outcome {
        try await ScenarioWorld.with(stack, scenario: name) { world in
            let fixture = try await world.fixture()
            let fleet = try await GatewayFleet.start(
                in: world.run, count: gateways, environment: fixture.environment.merging(gatewayEnvironment) { $1 }, binary: stack.binary)
            // The queries' snapshots, computed inline on their first pages (admission 1).
            for query in Self.queries {
                _ = try await HTTPProbe.request("\(fleet.baseURL)/v1/search?q=\(query)&per_page=10")
            }
            var walker = SessionWalker(baseURL: fleet.baseURL, queries: Self.queries)
            walker.walkers = walkers
            // Long enough for every restart; finished once the last is done and has served.
            let walks = walker.start(for: .seconds(600))
            let stop = TimedPages.Stop()
            let load = Task { await TimedPages(baseURL: fleet.baseURL, queries: Self.queries).run(until: stop) }
            var restarts: [GatewayFleet.Restart] = []
            try await Task.sleep(for: pause)
            for index in 0..<gateways {
                restarts.append(try await fleet.restart(index))
                try await Task.sleep(for: pause)
            }
            stop.set()
            let sessions = await walks.finish()
            let pages = await load.value
            await fleet.stop()
            return Outcome(
                restarts: restarts, walk: sessions.totals, pages: pages.count,
                failedPages: pages.filter { $0.status != 200 }.map { "page 1 answered \($0.status == 0 ? "nothing" : "\($0.status)")" },
                walkProblems: sessions.problems)
        }
    }
}
