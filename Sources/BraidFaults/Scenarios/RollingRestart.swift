import BraidHarness
import BraidDevSupport
import Foundation

/// `rolling-restart`: three gateways behind HAProxy (health-checked on `/readyz`, each stopping
/// with a drain the balancer notices), restarted one after the other while sessions walk their
/// pages through the balancer (each page of a walk may be served by another gateway) and page-1
/// requests come one after the other; then two workers restarted one after the other (SIGTERM,
/// a new process) while they materialize a stream of ranking requests. Passes when every answer
/// was a 200, every stopped process exited 0, no walk showed a document twice or skipped a
/// position, every request was materialized, and the workers' own tallies (the `processed=` of
/// each one's last log line) add up to the requests: none was processed twice.
public struct RollingRestart: FaultScenario {
    public let name = "rolling-restart"
    public var gateways = 3
    /// Load before the first restart, between restarts, and after the last.
    public var pause: Duration = .seconds(3)
    public var walkers = 4
    /// `BRAID_*` overrides of the gateways.
    public var gatewayEnvironment: [String: String] = [:]
    public var workers = 2
    /// Ranking requests for distinct queries, published at once.
    public var requests = 2_000
    /// Snapshots of the stream that exist when the first worker is restarted.
    public var restartWorkersAt = 200

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
        /// Wait statuses of the workers: those restarted, in order, then the last ones stopped.
        public var workerExits: [Int32?]
        /// Snapshots of the stream that existed when the first worker was restarted, and at the end.
        public var snapshotsAtRestart: Int
        public var snapshots: Int
        /// The workers' tallies added up, and the workers whose log had none.
        public var processed: Int
        public var workersWithoutTally: Int
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
        result.figure("workers_restarted", workers)
        result.figure("workers_exited_0", outcome.workerExits.filter { $0 == 0 }.count)
        result.figure("snapshots_at_first_worker_restart", outcome.snapshotsAtRestart)
        result.figure("requests", requests)
        result.figure("lost_requests", requests - outcome.snapshots)
        result.figure("processed_by_workers", outcome.processed)
        result.figure("processed_twice", outcome.processed - outcome.snapshots)
        for line in (outcome.failedPages + outcome.walkProblems).prefix(10) { result.diagnose(line) }
        let problems = problems(of: outcome)
        result.verdict(problems.isEmpty, problems.joined(separator: "; "))
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
            outcome.workerExits.count == 2 * workers && outcome.workerExits.allSatisfy({ $0 == 0 })
                ? nil : "a worker did not exit 0: \(outcome.workerExits)",
            outcome.snapshots < requests ? "\(requests - outcome.snapshots) requests not materialized" : nil,
            outcome.workersWithoutTally > 0 ? "\(outcome.workersWithoutTally) workers logged no tally" : nil,
            outcome.processed > outcome.snapshots ? "\(outcome.processed - outcome.snapshots) requests processed twice" : nil,
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
            let stream = try await restartWorkers(fixture)
            return Outcome(
                restarts: restarts, walk: sessions.totals, pages: pages.count,
                failedPages: pages.filter { $0.status != 200 }.map { "page 1 answered \($0.status == 0 ? "nothing" : "\($0.status)")" },
                walkProblems: sessions.problems, workerExits: stream.exits, snapshotsAtRestart: stream.atRestart, snapshots: stream.snapshots,
                processed: stream.tallies.compactMap { $0 }.reduce(0, +), workersWithoutTally: stream.tallies.filter { $0 == nil }.count)
        }
    }

    /// The workers' phase: the stream published, each worker replaced in turn once
    /// ``restartWorkersAt`` of it exist, every process stopped at the end.
    private func restartWorkers(_ fixture: WorkerFixture) async throws -> (exits: [Int32?], atRestart: Int, snapshots: Int, tallies: [Int?]) {
        let first = (1...workers).map { "w\($0)" }
        var running = try await fixture.startWorkers(first)
        let (before, atRestart) = try await fixture.withRedis { redis in
            let before = try await fixture.snapshots(in: redis)  // the gateways' phase wrote some
            let (status, last) = try await fixture.publish(WorkerFixture.rankingRequests((0..<requests).map { "rolling \($0)" }), as: "rolling")
            guard status == 0 else { throw HarnessError.failed("publishing the requests failed: \(last)") }
            guard try await fixture.waitForSnapshots(before + restartWorkersAt, in: redis, timeout: .seconds(120), interval: .milliseconds(50)) else {
                throw HarnessError.failed("fewer than \(restartWorkersAt) snapshots after 120 s")
            }
            return (before, try await fixture.snapshots(in: redis) - before)
        }
        var exits: [Int32?] = []
        for index in running.indices {
            exits.append(await running[index].stop(grace: .seconds(30)))
            let name = "w\(index + 1)-restarted"
            running[index] = try await fixture.startWorker(name)
            try await fixture.waitUntilAssigned(name)
        }
        let snapshots = try await fixture.withRedis { redis in
            _ = try await fixture.waitForSnapshots(before + requests, in: redis, timeout: .seconds(240))
            return try await fixture.snapshots(in: redis) - before
        }
        for worker in running { exits.append(await worker.stop(grace: .seconds(30))) }
        let tallies = try (first + first.map { "\($0)-restarted" }).map { try Self.tally(inLog: fixture.log(of: $0)) }
        return (exits, atRestart, snapshots, tallies)
    }

    /// The `processed=` of the requests worker's `stopped` line (not the events worker's).
    static func tally(inLog log: String) -> Int? {
        for line in log.split(separator: "\n").reversed() where line.contains(" braid.worker: ") && line.hasSuffix("stopped") {
            guard let field = line.split(separator: " ").first(where: { $0.hasPrefix("processed=") }) else { return nil }
            return Int(field.dropFirst("processed=".count))
        }
        return nil
    }
}
