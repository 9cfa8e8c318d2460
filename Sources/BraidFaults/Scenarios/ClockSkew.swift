import BraidContracts
import BraidHarness
import BraidDevSupport
import Foundation
import Synchronization

/// `clock-skew`: two gateways on the same Redis, broker and corpus, one whose clock runs 30 s
/// ahead and one 30 s behind (libfaketime), serve the same walks, page by page in turn, while a
/// worker writes new snapshot versions of the walked queries every 2 s. Passes when every page
/// is a 200, no walk shows a document twice or skips a position, walks interleave (their pinned
/// snapshots hold across both clocks), and, beyond the tolerance (a third gateway 2 h ahead),
/// cursors fail clearly: one issued there is refused elsewhere as `cursor_from_the_future`,
/// and one issued elsewhere is refused there as `cursor_expired`.
public struct ClockSkew: FaultScenario {
    public let name = "clock-skew"
    public var skewSeconds = 30
    public var walking: Duration = .seconds(20)

    public init() {}

    static let libfaketime = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"

    /// The environment that makes a process's wall clock run `offset` from this machine's.
    static func clock(_ offset: String) -> [String: String] {
        // Monotonic time stays real: timers and deadlines need no skew to be tested here.
        ["LD_PRELOAD": libfaketime, "FAKETIME": offset, "FAKETIME_DONT_FAKE_MONOTONIC": "1", "FAKETIME_NO_CACHE": "1"]
    }

    /// A shell script that execs `braid`. libfaketime's set-up in the first process it loads
    /// into calls `setenv`, which moves `environ`; a Swift program on Linux then loses its
    /// arguments (`braid gateway` sees no subcommand). Loaded first into the shell, it leaves
    /// `braid` an environment that already has what it sets.
    static func launcher(for binary: String, in folder: URL) throws -> String {
        let script = folder.appendingPathComponent("braid-under-faketime")
        try "#!/bin/sh\nexec '\(binary)' \"$@\"\n".write(to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        return script.path
    }

    public func run(on stack: FaultStack) async throws -> FaultResult {
        guard FileManager.default.fileExists(atPath: Self.libfaketime) else {
            throw HarnessError.missingTool("libfaketime", hint: "run Deploy/local/bootstrap.sh faults (Debian package faketime)")
        }
        return try await ScenarioWorld.with(stack, scenario: name) { world in
            let fixture = try await world.fixture()
            _ = try await fixture.startWorkers(["w1"])
            let launcher = try Self.launcher(for: fixture.binary, in: world.run.url)
            let ahead = try await fixture.startGateway("ahead", environment: Self.clock("+\(skewSeconds)s"), launcher: launcher)
            let behind = try await fixture.startGateway("behind", environment: Self.clock("-\(skewSeconds)s"), launcher: launcher)
            let farAhead = try await fixture.startGateway("far-ahead", environment: Self.clock("+2h"), launcher: launcher)
            let queries = ClusterLoad.hotQueries
            // The first snapshots are computed inline by the gateway behind: a snapshot's version
            // comes from the time of its request, so one computed by the gateway ahead would
            // make the worker skip refreshes as not newer for the first 30 s (README, clocks).
            for query in queries { _ = try await HTTPProbe.request("\(behind.baseURL)/v1/search?q=\(query)&per_page=10") }

            // Every request of a walk goes to the other gateway than the one before.
            let turn = Atomic<Int>(0)
            let bases = [ahead.baseURL, behind.baseURL]
            var walker = SessionWalker(queries: queries) { path in
                let base = bases[turn.add(1, ordering: .relaxed).newValue % 2]
                do {
                    let response = try await HTTPProbe.request(base + path, timeout: .seconds(10))
                    return (response.status, response.body, response.status == 200 ? nil : "HTTP \(response.status) from \(base)\(path): \(response.text.prefix(300))")
                } catch {
                    return (0, Data(), "request failed: \(base)\(path): \(error)")
                }
            }
            walker.walkers = 2
            let walks = walker.start(for: walking)
            let refreshes = Task {
                while !Task.isCancelled {
                    _ = try? await fixture.publish(WorkerFixture.rankingRequests(queries), as: "refresh")
                    try? await Task.sleep(for: .seconds(2))
                }
            }
            try await Task.sleep(for: walking)
            let report = await walks.finish()
            refreshes.cancel()
            let inexact = report.visits.filter { $0.page != nil && $0.page?.walk != "exact" }.count
            // The refreshes wrote new versions under the walks: pins were tested, not idle.
            let versions = Set(report.visits.compactMap { visit in visit.snapshot.map { "\(visit.query)/\($0)" } }).count

            // Beyond the tolerance, in both directions.
            let fromFarAhead = try await Self.cursorRefusal(issuedBy: farAhead.baseURL, presentedTo: ahead.baseURL, query: queries[0])
            let atFarAhead = try await Self.cursorRefusal(issuedBy: behind.baseURL, presentedTo: farAhead.baseURL, query: queries[0])

            var result = FaultResult()
            result.figure("skew_seconds", "±\(skewSeconds)")
            result.figure("pages", report.totals.pages)
            result.figure("non_200_pages", report.totals.non200)
            result.figure("sessions", report.totals.sessions)
            result.figure("interleaved_sessions", report.totals.interleavedSessions)
            result.figure("sessions_with_duplicates", report.totals.sessionsWithDuplicates)
            result.figure("sessions_with_gaps", report.totals.sessionsWithGaps)
            result.figure("pages_not_exact", inexact)
            result.figure("snapshot_versions_walked", versions)
            result.figure("cursor_from_2h_ahead", fromFarAhead)
            result.figure("cursor_at_2h_ahead", atFarAhead)
            let problems = [
                report.totals.non200 > 0 ? "non-200 pages: \(report.problems.prefix(2).joined(separator: " | "))" : nil,
                report.totals.sessionsWithDuplicates + report.totals.sessionsWithGaps > 0 ? "walks with duplicates or gaps" : nil,
                report.totals.interleavedSessions == 0 ? "no walk interleaved" : nil,
                inexact > 0 ? "\(inexact) pages left the exact walk" : nil,
                versions <= queries.count ? "no query was walked across two snapshot versions" : nil,
                fromFarAhead != "400_cursor_from_the_future" ? "a cursor from a clock 2 h ahead was not refused as such" : nil,
                atFarAhead != "400_cursor_expired" ? "a cursor at a clock 2 h ahead was not refused as expired" : nil,
            ].compactMap { $0 }
            result.verdict(problems.isEmpty, problems.joined(separator: "; "))
            return result
        }
    }

    /// Page 1 from `issuer`, its `next_cursor` presented to `server`: `<status>_<error code>`.
    static func cursorRefusal(issuedBy issuer: String, presentedTo server: String, query: String) async throws -> String {
        let first = try await HTTPProbe.request("\(issuer)/v1/search?q=\(query)&per_page=5")
        guard let cursor = ServedPage(json: first.body)?.nextCursor else { throw HarnessError.failed("no next_cursor from \(issuer)") }
        let next = try await HTTPProbe.request("\(server)/v1/search?q=\(query)&cursor=\(ServedPage.queryComponent(cursor))")
        let code = ((next.json?["error"] as? [String: Any])?["code"] as? String) ?? "none"
        return "\(next.status)_\(code)"
    }
}
