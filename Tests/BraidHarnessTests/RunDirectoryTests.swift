import BraidHarness
import Foundation
import Testing

@Suite("Run folders and the processes they record")
struct RunDirectoryTests {
    static func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("braid-run-\(UUID().uuidString)")
    }

    /// An identity no running process has: a pid that exited (reaped) with a start time.
    static func deadIdentity() async throws -> ProcessIdentity {
        let child = try await ChildProcess.start("/bin/true", [], log: nil)
        await child.waitForExit()
        return ProcessIdentity(pid: child.pid, startTicks: 1)
    }

    static func writeRecord(in folder: URL, process: ProcessIdentity, owner: ProcessIdentity) throws {
        let record: [String: Any] = [
            "process": ["pid": process.pid, "startTicks": process.startTicks],
            "owner": ["pid": owner.pid, "startTicks": owner.startTicks], "command": "test",
        ]
        let records = folder.appendingPathComponent("processes")
        try FileManager.default.createDirectory(at: records, withIntermediateDirectories: true)
        try JSONSerialization.data(withJSONObject: record).write(to: records.appendingPathComponent("\(process.pid).json"))
    }

    @Test func aProcessAnUncleanStopLeftBehindIsStoppedByTheNextRun() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // A child that the earlier (now dead) owner recorded: stand-in for a redis-server.
        let leftover = try await ChildProcess.start("/bin/sleep", ["300"], log: nil)
        let identity = try #require(ProcessIdentity.of(leftover.pid))
        try Self.writeRecord(in: folder, process: identity, owner: try await Self.deadIdentity())

        _ = try await RunDirectory(folder)
        #expect(await leftover.waitForExit(timeout: .seconds(10)) != nil, "the leftover was not stopped")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("processes").path).isEmpty)
    }

    @Test func stalePidFilesAndRecordsOfDeadProcessesTouchNothing() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // A process of someone else's whose pid is written in a pid file: never ours to stop.
        let bystander = try await ChildProcess.start("/bin/sleep", ["300"], log: nil)
        defer { bystander.kill9() }
        try "\(bystander.pid)".write(to: folder.appendingPathComponent("redis-6379.pid"), atomically: true, encoding: .utf8)
        // A record whose process is gone.
        try Self.writeRecord(in: folder, process: try await Self.deadIdentity(), owner: try await Self.deadIdentity())

        _ = try await RunDirectory(folder)
        try await Task.sleep(for: .milliseconds(200))
        #expect(!bystander.hasExited)
    }

    @Test func aRecordedPidNowUsedByAnotherProgramIsLeftAlone() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let other = try await ChildProcess.start("/bin/sleep", ["300"], log: nil)
        defer { other.kill9() }
        // Same pid, other start time: the pid was reused by a program that is not ours.
        let real = try #require(ProcessIdentity.of(other.pid))
        try Self.writeRecord(
            in: folder, process: ProcessIdentity(pid: other.pid, startTicks: real.startTicks + 1), owner: try await Self.deadIdentity())

        _ = try await RunDirectory(folder)
        try await Task.sleep(for: .milliseconds(200))
        #expect(!other.hasExited)
    }

    @Test func aFolderInUseByALiveHarnessIsRefusedWhenExclusive() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let child = try await ChildProcess.start("/bin/sleep", ["300"], log: nil)
        defer { child.kill9() }
        // Owned by a live process other than this one.
        let owner = try #require(ProcessIdentity.of(child.pid))
        try Self.writeRecord(in: folder, process: owner, owner: owner)
        await #expect(throws: HarnessError.self) { _ = try await RunDirectory(folder, exclusive: true) }
        #expect(!child.hasExited)
    }

    @Test func childrenStartWithDefaultSignalHandlingAndStopOnSIGTERM() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try await RunDirectory(folder)
        let child = try await run.start("/bin/sleep", ["300"], log: "sleep.log")
        await run.stopAll(grace: .seconds(10))
        // The wait status, not the clock, says which signal ended it.
        let status = try #require(await child.waitForExit(timeout: .zero), "still running after stopAll")
        #expect(ChildProcess.terminatingSignal(status) == SIGTERM, "SIGTERM was ignored; it took SIGKILL")
    }
}
