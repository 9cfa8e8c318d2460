import BraidTestSupport
import Foundation
import Testing

@Suite("braid experiment plan", .computeHeavy)
struct ExperimentPlanCommandTests {
    func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("braid-plan-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func plansOnTheEventsTheRoundTripWroteAndSkipsMalformedLines() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let events = folder.appendingPathComponent("events.jsonl")
        let roundTrip = try BraidBinary.run(["experiment", "round-trip", "--users", "300", "--workers", "1", "--write-events", events.path])
        #expect(roundTrip.status == 0, "\(roundTrip.stderr)")
        #expect(roundTrip.stdout.contains("RATIO evaluation.calibration_error "))
        #expect(roundTrip.stdout.contains("FIGURE evaluation.calibration.persistence "))
        // A team's export with one bad line: skipped, counted and named, the rest planned on.
        let handle = try FileHandle(forWritingTo: events)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("{\"schema\":\"braid.event/v1\"\n".utf8))
        try handle.close()
        let lines = try String(contentsOf: events, encoding: .utf8).split(separator: "\n").count
        let plan = try BraidBinary.run([
            "experiment", "plan", "--events", events.path, "--calibration-sessions", "5000", "--workers", "1",
        ])
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stderr.contains("skipped 1 malformed line(s)") && plan.stderr.contains("line \(lines):"), "\(plan.stderr)")
        for prefix in [
            "FIT sessions_per_user 5.00", "FIT propensity_spread ", "FIT persistence ", "FIT satisfaction ", "FIT goodness_of_fit ",
            "PLAN interleaving.sessions ", "PLAN ab.sessions ",
        ] {
            #expect(plan.stdout.contains(prefix), "\(prefix): \(plan.stdout)")
        }
    }

    @Test func aFileWithNoEventIsAnErrorNamingTheLine() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let events = folder.appendingPathComponent("bad.jsonl")
        try Data("\nthis is not an event\n".utf8).write(to: events)
        let result = try BraidBinary.run(["experiment", "plan", "--events", events.path])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("holds no braid.event/v1 message: line 2:"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)

        let missing = try BraidBinary.run(["experiment", "plan", "--events", folder.appendingPathComponent("none.jsonl").path])
        #expect(missing.status == 2 && missing.stderr.contains("cannot open --events"), "\(missing.stderr)")
        let flags = try BraidBinary.run(["experiment", "plan", "--events", events.path, "--prefer", "neither"])
        #expect(flags.status == 2 && flags.stderr.contains("--prefer"), "\(flags.stderr)")
    }
}
