import BraidContracts
import BraidDevSupport
import BraidHarness
import BraidRedis
import Foundation
import NIOCore

/// `rolling-upgrade` (run only when named: it needs the previous release, given as
/// `PREVIOUS=<its braid>` or `PREVIOUS=<its tarball>.tar.gz`): three gateways behind HAProxy and a worker, all of the previous version,
/// upgraded one process at a time to this one, then downgraded the same way, while sessions walk
/// through the balancer (a walk's pages are served by both versions) and page-1 requests come one
/// after the other. Impressions minted by one version are clicked on the other (ids, cursors and
/// walk records written by one are read by the other, both ways); ranking requests published
/// before each worker swap are materialized by the version that follows (Redis values written by
/// one are read by the other). Every process of both versions reads the same configuration file.
/// Passes when every answer was a 200, every walk was exact, every click was credited once (and a
/// replay of all of them credited nothing), every request was materialized, and every stopped
/// process exited 0.
public struct RollingUpgrade: FaultScenario {
    public let name = "rolling-upgrade"
    /// The previous release: its `braid`, or its tarball (`make dist`).
    public var previous = ProcessInfo.processInfo.environment["PREVIOUS"] ?? ""
    public var gateways = 3
    public var pause: Duration = .seconds(3)
    public var walkers = 4
    /// Impressions minted (and later clicked) in each direction.
    public var impressions = 40
    /// Ranking requests published before each worker swap.
    public var requests = 300

    public init() {}

    static let queries = ["curry", "pasta", "salmon", "cake", "soup", "bread", "tomato", "egg"]

    /// A click for an impression minted by one version, to be posted to the other.
    struct Click {
        var impression: String
        var position: Int
        var json: [String: Any] { ["type": "click", "impression_id": impression, "position": position] }
    }

    public func run(on stack: FaultStack) async throws -> FaultResult {
        let previous = try await Self.binary(previous, unpackingIn: stack.run.url)
        guard FileManager.default.isExecutableFile(atPath: previous) else {
            throw HarnessError.failed(
                "rolling-upgrade needs the previous release: PREVIOUS=<its braid, or the tarball `make dist` built at the commit "
                    + "before the change>")
        }
        let current = stack.binary
        // `braid version` names the release; the digest tells two builds of one release apart.
        func identity(_ binary: String) async throws -> String {
            let version = try await ChildProcess.check(binary, ["version"]).split(separator: "\n").first.map(String.init) ?? "?"
            let digest = try await ChildProcess.check(try Toolchain.find("sha256sum"), [binary]).prefix(12)
            return "\(version) sha256:\(digest)"
        }
        let versions = (previous: try await identity(previous), current: try await identity(current))
        return try await ScenarioWorld.with(stack, scenario: name) { world in
            let fixture = try await world.fixture()
            let file = world.file("upgrade.yaml")
            try """
                gateway:
                  admission: {threshold: 1}
                  drain_ms: \(Balancer.gatewayDrainMs)
                interleaving:
                  mode: team_draft
                  miss_policy: inline
                worker:
                  concurrency: 8

                """.write(to: file, atomically: true, encoding: .utf8)
            let arguments = ["--config", file.path]
            var workerExits: [Int32?] = []
            var worker = try await BraidService.worker(
                in: world.run, name: "worker-previous", arguments: arguments, environment: fixture.environment,
                assignedFrom: fixture.requestsTopic, binary: previous)
            let fleet = try await GatewayFleet.start(
                in: world.run, count: gateways, environment: fixture.environment, arguments: arguments, binary: previous)
            for query in Self.queries { _ = try await HTTPProbe.request("\(fleet.baseURL)/v1/search?q=\(query)&per_page=10") }
            var walker = SessionWalker(baseURL: fleet.baseURL, queries: Self.queries)
            walker.walkers = walkers
            let walks = walker.start(for: .seconds(900))
            let stop = TimedPages.Stop()
            let load = Task { await TimedPages(baseURL: fleet.baseURL, queries: Self.queries).run(until: stop) }
            var restarts: [GatewayFleet.Restart] = []
            var posted = 0
            var snapshotsExpected = 0

            // Up: impressions minted by the previous version, clicked on this one.
            let mintedByPrevious = try await mint(on: fleet.baseURL, prefix: "prev")
            try await Task.sleep(for: pause)
            for index in 0..<gateways {
                restarts.append(try await fleet.restart(index, binary: current))
                try await Task.sleep(for: pause)
            }
            posted += try await AppEvents.post(mintedByPrevious.map(\.json), to: fleet.baseURL)
            snapshotsExpected += requests
            (worker, workerExits) = try await swapWorker(
                worker, to: current, name: "worker-current", published: "up", fixture: fixture, world: world, arguments: arguments,
                exits: workerExits)

            // Down: impressions minted by this version, clicked on the previous one.
            let mintedByCurrent = try await mint(on: fleet.baseURL, prefix: "cur")
            for index in 0..<gateways {
                restarts.append(try await fleet.restart(index, binary: previous))
                try await Task.sleep(for: pause)
            }
            posted += try await AppEvents.post(mintedByCurrent.map(\.json), to: fleet.baseURL)
            snapshotsExpected += requests
            (worker, workerExits) = try await swapWorker(
                worker, to: previous, name: "worker-previous-again", published: "down", fixture: fixture, world: world,
                arguments: arguments, exits: workerExits)

            stop.set()
            let sessions = await walks.finish()
            let pages = await load.value
            let clicks = mintedByPrevious + mintedByCurrent
            let credited = try await fixture.withRedis { redis in
                let counters = CacheKeys(prefix: fixture.keyPrefix).experiment("default").counters
                func field(_ name: String) async throws -> Int {
                    Int(try await redis.hgetall(counters)[name].map { String(buffer: $0) } ?? "0") ?? 0
                }
                try await Poll.until(seconds: 60, "the clicks were not credited within 60 s") {
                    try await field("wins_b") >= clicks.count
                }
                let before = (impressions: try await field("impressions"), winsB: try await field("wins_b"))
                // A replay of every click, through the last version: each impression's state says it was seen.
                let duplicatesBefore = try await field("duplicates")
                _ = try await AppEvents.post(clicks.map(\.json), to: fleet.baseURL)
                try await Poll.until(seconds: 60, "the replayed clicks were not counted within 60 s") {
                    try await field("duplicates") >= duplicatesBefore + clicks.count
                }
                return (
                    impressions: before.impressions, winsB: before.winsB, afterReplay: try await field("wins_b"),
                    snapshots: try await fixture.snapshots(in: redis))
            }
            await fleet.stop()
            worker.process.signal(SIGTERM)
            workerExits.append(await worker.process.waitForExit(timeout: .seconds(30)))

            var result = FaultResult()
            result.figure("previous", versions.previous)
            result.figure("current", versions.current)
            result.figure("gateway_restarts", restarts.count)
            result.figure("gateways_exited_0", restarts.filter { $0.status == 0 }.count)
            result.figure("workers_exited_0", "\(workerExits.filter { $0 == 0 }.count)/\(workerExits.count)")
            let failedPages = pages.filter { $0.status != 200 }.count
            result.figure("pages", pages.count + sessions.totals.pages)
            result.figure("non_2xx", failedPages + sessions.totals.non200)
            result.figure("sessions", sessions.totals.sessions)
            result.figure("interleaved_sessions", sessions.totals.interleavedSessions)
            result.figure("sessions_with_duplicates", sessions.totals.sessionsWithDuplicates)
            result.figure("sessions_with_gaps", sessions.totals.sessionsWithGaps)
            result.figure("clicks_across_versions", posted)
            result.figure("impressions_credited", credited.impressions)
            result.figure("clicks_credited", credited.winsB)
            result.figure("credited_again_on_replay", credited.afterReplay - credited.winsB)
            result.figure("requests", snapshotsExpected)
            result.figure("snapshots", credited.snapshots)
            for line in sessions.problems.prefix(10) { result.diagnose(line) }
            let problems = [
                failedPages + sessions.totals.non200 > 0 ? "\(failedPages + sessions.totals.non200) answers were not 200" : nil,
                restarts.allSatisfy({ $0.status == 0 }) ? nil : "a gateway did not exit 0: \(restarts.map(\.status))",
                workerExits.allSatisfy({ $0 == 0 }) ? nil : "a worker did not exit 0: \(workerExits)",
                sessions.totals.sessionsWithDuplicates > 0 ? "\(sessions.totals.sessionsWithDuplicates) walks showed a document twice" : nil,
                sessions.totals.sessionsWithGaps > 0 ? "\(sessions.totals.sessionsWithGaps) walks skipped a position" : nil,
                sessions.totals.interleavedSessions == 0 ? "no walk was interleaved" : nil,
                credited.impressions != clicks.count || credited.winsB != clicks.count
                    ? "\(clicks.count) clicks across versions, \(credited.impressions) impressions and \(credited.winsB) B wins credited" : nil,
                credited.afterReplay != credited.winsB ? "a replay credited \(credited.afterReplay - credited.winsB) clicks again" : nil,
                credited.snapshots < snapshotsExpected ? "\(snapshotsExpected - credited.snapshots) requests not materialized" : nil,
            ].compactMap { $0 }
            result.verdict(problems.isEmpty, problems.joined(separator: "; "))
            return result
        }
    }

    /// `path` itself, or for a release tarball (`….tar.gz`) the `braid` it holds, unpacked into `folder`.
    static func binary(_ path: String, unpackingIn folder: URL) async throws -> String {
        guard path.hasSuffix(".tar.gz") else { return path }
        let into = folder.appendingPathComponent("previous-release")
        try FileManager.default.createDirectory(at: into, withIntermediateDirectories: true)
        _ = try await ChildProcess.check(try Toolchain.find("tar"), ["-xzf", path, "-C", into.path])
        let top = try FileManager.default.contentsOfDirectory(atPath: into.path)
        guard let release = top.first(where: { FileManager.default.isExecutableFile(atPath: "\(into.path)/\($0)/braid") }) else {
            throw HarnessError.failed("\(path) holds no <release>/braid")
        }
        return "\(into.path)/\(release)/braid"
    }

    /// Page 1 for `impressions` new sessions: a click on each one's first B document.
    private func mint(on base: String, prefix: String) async throws -> [Click] {
        var clicks: [Click] = []
        for index in 0..<impressions {
            let query = Self.queries[index % Self.queries.count]
            let response = try await HTTPProbe.request("\(base)/v1/search?q=\(query)&per_page=10&session=\(prefix)-\(index)")
            guard response.status == 200, let page = response.json, let id = page["impression_id"] as? String,
                  let items = page["items"] as? [[String: Any]],
                  let b = items.first(where: { $0["team"] as? String == "B" })?["position"] as? Int
            else { throw HarnessError.failed("page 1 for a click answered \(response.status): \(response.text.prefix(300))") }
            clicks.append(Click(impression: id, position: b))
        }
        return clicks
    }

    /// Publishes ``requests`` ranking requests, replaces `worker` (SIGTERM: it finishes what it
    /// started and commits) with one from `binary`, and waits until the new one has materialized them.
    private func swapWorker(
        _ worker: BraidService, to binary: String, name: String, published: String, fixture: WorkerFixture, world: ScenarioWorld,
        arguments: [String], exits: [Int32?]
    ) async throws -> (BraidService, [Int32?]) {
        let before = try await fixture.withRedis { try await fixture.snapshots(in: $0) }
        let (status, last) = try await fixture.publish(
            WorkerFixture.rankingRequests((0..<requests).map { "upgrade \(published) \($0)" }), as: "upgrade-\(published)")
        guard status == 0 else { throw HarnessError.failed("publishing the requests failed: \(last)") }
        worker.process.signal(SIGTERM)
        let exit = await worker.process.waitForExit(timeout: .seconds(30))
        await world.run.stop(worker.process)
        let next = try await BraidService.worker(
            in: world.run, name: name, arguments: arguments, environment: fixture.environment, assignedFrom: fixture.requestsTopic,
            binary: binary)
        let done = try await fixture.withRedis { redis in
            try await fixture.waitForSnapshots(before + requests, in: redis, timeout: .seconds(120))
        }
        guard done else { throw HarnessError.failed("the \(published) requests were not all materialized within 120 s") }
        return (next, exits + [exit])
    }
}
