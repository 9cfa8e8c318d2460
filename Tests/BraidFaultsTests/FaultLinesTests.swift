import BraidHarness
import Foundation
import Synchronization
import Testing

@testable import BraidFaults

/// The lines `make faults` prints: the format RELIABILITY.md records and scripts grep.
@Suite("Fault lines")
struct FaultLinesTests {
    @Test func figuresComeFirstThenPassOrFailWithTheReason() {
        var passed = FaultResult()
        passed.figure("snapshots_when_killed", 936)
        passed.figure("seconds_until_interleaved_again", Seconds.tenths(.milliseconds(2_560)))
        passed.verdict(true, "unused")
        #expect(
            passed.printed(scenario: "worker-kill") == [
                "FAULT worker-kill snapshots_when_killed 936", "FAULT worker-kill seconds_until_interleaved_again 2.6", "FAULT worker-kill PASS",
            ])
        #expect(passed.passed)
        #expect(passed.figure("snapshots_when_killed") == "936")

        var failed = FaultResult()
        failed.figure("publish", "acknowledged 500, failed 0")
        failed.note("  reason:     200 invalid request: not valid JSON")
        failed.verdict(false, "non-200 pages 3, publish exit 0")
        #expect(
            failed.printed(scenario: "broker-freeze", tag: "ATTACK") == [
                "ATTACK broker-freeze publish acknowledged_500,_failed_0", "  reason:     200 invalid request: not valid JSON",
                "ATTACK broker-freeze FAIL: non-200 pages 3, publish exit 0",
            ])
        #expect(!failed.passed)
    }

    @Test func aScenarioWithoutAVerdictFails() {
        var result = FaultResult()
        result.figure("pages", 3)
        #expect(!result.passed)
        #expect(result.printed(scenario: "x").last == "FAULT x FAIL: no verdict")
    }

    @Test func wholeSecondsRoundDown() {
        #expect(Seconds.whole(.milliseconds(12_999)) == 12)
        #expect(Seconds.tenths(.milliseconds(94)) == "0.1")
    }

    /// As `grep -o 'braid-dlq-reason=[^,]*' | cut -c18-80 | sort | uniq -c | sort -rn | head -12` counts them.
    @Test func reasonsAreCountedMostFirstCutAtACommaAnd63Bytes() {
        let long = "invalid request: requested_at: must be an RFC 3339 time with a time zone, such as 2026-11-22T10:00:00Z"
        let reasons = Array(repeating: "invalid request: not valid JSON", count: 200) + Array(repeating: long, count: 100)
            + Array(repeating: "invalid request: kind: unknown 'teleport'", count: 100)
            + Array(repeating: "unknown ranking 'no-such-ranking'; configured: featured, fresh", count: 100)
            + (0..<20).map { "reason \($0)" }
        let lines = ReasonTally.lines(reasons)
        #expect(
            Array(lines.prefix(4)) == [
                "  reason:     200 invalid request: not valid JSON",
                "  reason:     100 unknown ranking 'no-such-ranking'; configured: featured",
                "  reason:     100 invalid request: requested_at: must be an RFC 3339 time with a ",
                "  reason:     100 invalid request: kind: unknown 'teleport'",
            ])
        #expect(lines.count == 12)
        #expect(lines[4] == "  reason:       1 reason 9")
    }

    @Test("The shipped Redis configuration asks for volatile-lfu, and redis-full starts Redis with its directives")
    func shippedRedisConfigurationIsWhatRedisFullRuns() throws {
        let text = try String(contentsOf: Toolchain.root.appendingPathComponent("Deploy/redis/braid-redis.conf"), encoding: .utf8)
        #expect(RedisFull.arguments(fromConfiguration: text) == ["--maxmemory-policy", "volatile-lfu"])
        #expect(RedisFull.arguments(fromConfiguration: "# maxmemory 4gb\n\nmaxmemory 48mb\n") == ["--maxmemory", "48mb"])
    }

    @Test("rolling-upgrade takes the previous release as a tarball and runs the braid inside it")
    func previousReleaseTarballIsUnpacked() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("upgrade-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let release = folder.appendingPathComponent("stage/braid-0.0.9-linux-x86_64")
        try FileManager.default.createDirectory(at: release, withIntermediateDirectories: true)
        let script = release.appendingPathComponent("braid")
        try "#!/bin/sh\necho braid 0.0.9\n".write(to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        let tarball = folder.appendingPathComponent("braid-0.0.9-linux-x86_64.tar.gz").path
        _ = try await ChildProcess.check(try Toolchain.find("tar"), ["-czf", tarball, "-C", folder.appendingPathComponent("stage").path, "."])
        let binary = try await RollingUpgrade.binary(tarball, unpackingIn: folder.appendingPathComponent("run"))
        #expect(binary.hasSuffix("/previous-release/braid-0.0.9-linux-x86_64/braid"))
        #expect(try await ChildProcess.check(binary, ["version"]).hasPrefix("braid 0.0.9"))
        #expect(try await RollingUpgrade.binary("/opt/braid/braid", unpackingIn: folder) == "/opt/braid/braid", "a binary is taken as it is")
    }

    @Test func theCatalogSelectsAllOneOrNone() {
        #expect(
            FaultCatalog.names == [
                "broker-freeze", "worker-kill", "redis-restart", "hostile", "rolling-restart", "component-refresh", "redis-full", "reshard", "primary-kill", "partition-gateway-redis",
                "partition-worker-redis", "partition-worker-broker", "blackhole-redis", "clock-skew",
            ])
        #expect(FaultCatalog.select("all")?.count == 14)
        #expect(FaultCatalog.select("reshard")?.map(\.name) == ["reshard"])
        #expect(FaultCatalog.select("rolling-upgrade")?.map(\.name) == ["rolling-upgrade"], "run when named")
        #expect(FaultCatalog.select("all")?.contains { $0.name == "rolling-upgrade" } == false, "not by all: it needs PREVIOUS")
        #expect(FaultCatalog.select("resharding") == nil)
    }
}

/// The runner: every scenario's lines in order, a thrown error as a FAIL, the failures named.
@Suite("Fault runner")
struct FaultRunnerTests {
    struct Scripted: FaultScenario {
        struct Broken: Error, CustomStringConvertible {
            var description: String { "the broker did not start" }
        }

        let name: String
        let outcome: Bool?

        func run(on stack: FaultStack) async throws -> FaultResult {
            guard let outcome else { throw Broken() }
            var result = FaultResult()
            result.figure("pages", 12)
            result.verdict(outcome, "non-200 pages 3")
            if !outcome { result.diagnose("  walk: HTTP 503") }
            return result
        }
    }

    @Test func aThrownScenarioFailsWithItsErrorAndTheOthersStillRun() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("faults-runner-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let stack = FaultStack(
            run: try await RunDirectory(folder), redisURL: "redis://127.0.0.1:1", brokers: "127.0.0.1:1", brokerPID: 0,
            corpus: folder.appendingPathComponent("corpus.sqlite"), binary: "/bin/false")
        let printed = Lines()
        let diagnosed = Lines()
        let failed = await FaultRunner.run(
            [Scripted(name: "a", outcome: nil), Scripted(name: "b", outcome: true), Scripted(name: "c", outcome: false)], on: stack,
            print: printed.add, diagnose: diagnosed.add)
        #expect(failed == ["a", "c"])
        #expect(
            printed.all == [
                "FAULT a FAIL: the broker did not start", "FAULT b pages 12", "FAULT b PASS", "FAULT c pages 12", "FAULT c FAIL: non-200 pages 3",
            ])
        #expect(diagnosed.all == ["  walk: HTTP 503"])
    }

    final class Lines: Sendable {
        private let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        func add(_ line: String) { lines.withLock { $0.append(line) } }
    }

    @Test("A worker's tally is the processed= of the requests worker's stopped line, not the events worker's")
    func theTallyOfAWorkerLog() {
        let log = """
            2026-11-28T19:00:00+0000 info braid.worker: [BraidWorker] stopping: finishing started requests, then committing and leaving the group
            2026-11-28T19:00:01+0000 info braid.worker.events: processed=7 [BraidWorker] stopped
            2026-11-28T19:00:01+0000 info braid.worker: processed=412 [BraidWorker] stopped
            """
        #expect(RollingRestart.tally(inLog: log) == 412)
        #expect(RollingRestart.tally(inLog: "2026-11-28T19:00:01+0000 info braid.worker.events: processed=7 [BraidWorker] stopped") == nil)
        #expect(RollingRestart.tally(inLog: "") == nil)
    }
}
