import Foundation
import Synchronization

/// A folder of the harness's runs (under `.run/`) and a record of every process started in it.
///
/// Each child the harness starts is written to `processes/<pid>.json` with its identity and
/// its owner's. A later run in the same folder stops what an unclean stop of an earlier one
/// left behind: a recorded process whose owner is gone but which is itself still running
/// (same pid and start time) is ours, and is stopped; nothing else is touched, whatever pid
/// files may lie around.
public final class RunDirectory: Sendable {
    public let url: URL
    private let owner: ProcessIdentity
    private let children = Mutex<[ChildProcess]>([])

    struct Record: Codable {
        var process: ProcessIdentity
        var owner: ProcessIdentity
        var command: String
    }

    /// Opens (creating it if needed) the run folder `url`, after stopping what earlier owners
    /// of it left running. With `exclusive`, a folder another live harness is using is an
    /// error (two `make run`s on one folder), not shared.
    public init(_ url: URL, exclusive: Bool = false) async throws(HarnessError) {
        guard let owner = ProcessIdentity.current else { throw .failed("cannot read /proc/self/stat") }
        self.url = url
        self.owner = owner
        do {
            try FileManager.default.createDirectory(at: url.appendingPathComponent("processes"), withIntermediateDirectories: true)
        } catch {
            throw .failed("cannot create \(url.path): \(error)")
        }
        if let other = await Self.reclaim(url), exclusive {
            throw .failed("\(url.path) is in use by a running harness (pid \(other.pid)); stop it first")
        }
    }

    /// A folder of its own under `.run/` for one run of kind `name` (`test-<pid>`, …); folders
    /// of earlier runs of that kind whose owner has gone are reclaimed and removed.
    public static func scratch(_ name: String) async throws(HarnessError) -> RunDirectory {
        let base = Toolchain.root.appendingPathComponent(".run", isDirectory: true)
        let prefix = "\(name)-"
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: base.path)) ?? [] where entry.hasPrefix(prefix) {
            let folder = base.appendingPathComponent(entry)
            if await reclaim(folder) == nil { try? FileManager.default.removeItem(at: folder) }
        }
        return try await RunDirectory(base.appendingPathComponent("\(prefix)\(getpid())", isDirectory: true))
    }

    /// Stops the processes recorded in `folder` whose owner has gone; returns a live owner
    /// other than this process, if there is one (then the folder must not be removed).
    static func reclaim(_ folder: URL) async -> ProcessIdentity? {
        let records = folder.appendingPathComponent("processes")
        var liveOwner: ProcessIdentity?
        for name in (try? FileManager.default.contentsOfDirectory(atPath: records.path)) ?? [] where name.hasSuffix(".json") {
            let file = records.appendingPathComponent(name)
            guard let data = try? Data(contentsOf: file), let record = try? JSONDecoder().decode(Record.self, from: data) else {
                try? FileManager.default.removeItem(at: file)
                continue
            }
            if record.owner.isAlive && record.owner != ProcessIdentity.current {
                liveOwner = record.owner
                continue
            }
            if record.process.isAlive { await terminate(record.process) }
            try? FileManager.default.removeItem(at: file)
        }
        return liveOwner
    }

    private static func terminate(_ process: ProcessIdentity) async {
        kill(process.pid, SIGCONT)
        kill(process.pid, SIGTERM)
        let deadline = ContinuousClock.now + .seconds(5)
        while process.isAlive, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(50)) }
        if process.isAlive { kill(process.pid, SIGKILL) }
        while process.isAlive { try? await Task.sleep(for: .milliseconds(20)) }
    }

    /// The path of `name` inside the folder.
    public func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// Starts a child, logging to `log` (a file name in this folder), and records it; in the
    /// network namespace `namespace` when one is given (``Placement``).
    public func start(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], log: String, namespace: String? = nil
    ) async throws(HarnessError) -> ChildProcess {
        try await start(executable, arguments, environment: environment, logFile: file(log), namespace: namespace)
    }

    /// Starts a child, logging to `logFile` (anywhere), and records it.
    public func start(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], logFile: URL, namespace: String? = nil
    ) async throws(HarnessError) -> ChildProcess {
        // `ip netns exec` enters the namespace and execs the program: the same process, so it
        // keeps its parent-death signal and is recorded under its own pid.
        let (program, argv) =
            if let namespace { (try Toolchain.find("ip"), ["netns", "exec", namespace, executable] + arguments) } else { (executable, arguments) }
        let child = try await ChildProcess.start(program, argv, environment: environment, log: logFile)
        if let identity = ProcessIdentity.of(child.pid) {
            let record = Record(process: identity, owner: owner, command: ([executable] + arguments).joined(separator: " "))
            try? JSONEncoder().encode(record).write(to: recordFile(child.pid))
        }
        children.withLock { $0.append(child) }
        return child
    }

    /// Stops `child` (SIGTERM, then SIGKILL after `grace`) and forgets it.
    public func stop(_ child: ChildProcess, grace: Duration = .seconds(5)) async {
        await child.stop(grace: grace)
        forget(child)
    }

    /// Forgets a child that has exited on its own (or that a test killed).
    public func forget(_ child: ChildProcess) {
        try? FileManager.default.removeItem(at: recordFile(child.pid))
        children.withLock { $0.removeAll { $0 === child } }
    }

    /// Stops every child still running, newest first (services before the servers they use).
    public func stopAll(grace: Duration = .seconds(5)) async {
        let running = children.withLock { $0 }
        for child in running.reversed() { await stop(child, grace: grace) }
    }

    /// Removes the folder (after ``stopAll(grace:)``).
    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }

    private func recordFile(_ pid: pid_t) -> URL { url.appendingPathComponent("processes/\(pid).json") }
}
