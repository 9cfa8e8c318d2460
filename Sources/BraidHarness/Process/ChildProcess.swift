import Foundation
import Synchronization

/// A process the harness started: a server, a `braid` service, a browser driver.
///
/// Not Foundation's `Process`, for three reasons: on Linux it spawns children with the
/// signal mask of the calling thread (Swift's threads block most signals, so a server started
/// that way ignores SIGTERM); it cannot make a child die with its parent; and waiting for it
/// blocks a thread. Children here start with default signal handling, in a process group of
/// their own, and die with the harness (``Spawner``); waiting polls without blocking.
public final class ChildProcess: Sendable {
    public let pid: pid_t
    public let executable: String
    /// The file stdout and stderr go to, if any.
    public let log: URL?
    /// The reaped wait status: waitpid succeeds only once per exit, so it is kept.
    private let exitStatus = Mutex<Int32?>(nil)

    private init(pid: pid_t, executable: String, log: URL?) {
        self.pid = pid
        self.executable = executable
        self.log = log
    }

    /// Starts `executable` with `arguments`. `environment` entries are added to
    /// ``Toolchain/childEnvironment`` (this process's environment with the project's tools
    /// first on the paths). stdout and stderr are appended to `log`, or shared with this
    /// process when it is nil; stdin is /dev/null.
    ///
    /// With `ownProcessGroup` (the default) the child leads a process group of its own, so a
    /// terminal's Ctrl-C reaches only the harness, which stops its children in order; a tool
    /// that talks to the terminal (`swift test`, a browser check) may stay in the harness's.
    /// `directory` is its working directory (default: this process's).
    public static func start(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], log: URL?,
        ownProcessGroup: Bool = true, directory: URL? = nil
    ) async throws(HarnessError) -> ChildProcess {
        let input = open("/dev/null", O_RDONLY | O_CLOEXEC)
        let output = log.map { open($0.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644) } ?? -1
        defer {
            if input >= 0 { close(input) }
            if output >= 0 { close(output) }
        }
        guard input >= 0, log == nil || output >= 0 else {
            throw .cannotStart(executable, reason: "cannot open \(log?.path ?? "/dev/null"): \(String(cString: strerror(errno)))")
        }
        let pid = try await Spawner.shared.spawn(
            .init(
                executable: executable, arguments: arguments,
                environment: Toolchain.childEnvironment.merging(environment) { $1 },
                stdin: input, stdout: output, stderr: output, newProcessGroup: ownProcessGroup, directory: directory?.path))
        return ChildProcess(pid: pid, executable: executable, log: log)
    }

    /// Runs a short command to completion and returns its exit status and combined output.
    /// A command that has not exited after `timeout` is killed and reported as failed.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], timeout: Duration = .seconds(60)
    ) async throws(HarnessError) -> (status: Int32, output: String) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("braid-harness-\(UUID().uuidString).out")
        defer { try? FileManager.default.removeItem(at: file) }
        let child = try await start(executable, arguments, environment: environment, log: file)
        let status = await child.waitForExit(timeout: timeout)
        let output = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        guard let status else {
            child.kill9()
            throw .commandFailed(([executable] + arguments).joined(separator: " "), status: -1, output: "timed out after \(timeout)\n" + output)
        }
        return (exitCode(status) ?? 128 + (terminatingSignal(status) ?? 0), output)
    }

    /// ``run(_:_:environment:timeout:)``, throwing unless the command exits 0.
    @discardableResult
    public static func check(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], timeout: Duration = .seconds(60)
    ) async throws(HarnessError) -> String {
        let (status, output) = try await run(executable, arguments, environment: environment, timeout: timeout)
        guard status == 0 else {
            throw .commandFailed(([executable] + arguments).joined(separator: " "), status: status, output: output)
        }
        return output
    }

    /// Sends a signal (SIGTERM, SIGKILL, SIGSTOP, SIGCONT…); no effect once it has been reaped.
    public func signal(_ signal: Int32) {
        guard exitStatus.withLock({ $0 }) == nil else { return }
        kill(pid, signal)
    }

    /// Whether the process has exited (reaping it if so).
    public var hasExited: Bool { reap(block: false) != nil }

    /// Waits for the process to exit and returns its wait status (see ``exitCode(_:)``),
    /// polling without blocking a thread; nil when `timeout` passes first.
    @discardableResult
    public func waitForExit(timeout: Duration = .seconds(30)) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let status = reap(block: false) { return status }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return reap(block: false)
    }

    /// SIGTERM (after a SIGCONT, in case a test froze it), then SIGKILL if it has not exited
    /// after `grace`; returns the wait status.
    @discardableResult
    public func stop(grace: Duration = .seconds(5)) async -> Int32? {
        signal(SIGCONT)
        signal(SIGTERM)
        if let status = await waitForExit(timeout: grace) { return status }
        signal(SIGKILL)
        return await waitForExit(timeout: .seconds(5))
    }

    /// SIGKILL and reap; safe from `deinit` and synchronous code.
    public func kill9() {
        signal(SIGKILL)
        _ = reap(block: true)
    }

    /// The exit code of a wait status, or nil when the process was killed by a signal.
    public static func exitCode(_ status: Int32) -> Int32? {
        status & 0x7f == 0 ? (status >> 8) & 0xff : nil
    }

    /// The signal that killed the process, or nil when it exited normally.
    public static func terminatingSignal(_ status: Int32) -> Int32? {
        let signal = status & 0x7f
        return signal != 0 && signal != 0x7f ? signal : nil
    }

    private func reap(block: Bool) -> Int32? {
        exitStatus.withLock { status in
            if let status { return status }
            var raw: Int32 = 0
            let result = waitpid(pid, &raw, block ? 0 : WNOHANG)
            if result == pid { status = raw }
            return status
        }
    }

    deinit {
        if exitStatus.withLock({ $0 }) == nil { kill9() }
    }
}
