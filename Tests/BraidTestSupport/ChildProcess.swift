import Foundation
import Synchronization

/// A child process for tests (servers, `braid` services) that can be stopped with signals.
///
/// Not Foundation's `Process`: on Linux it spawns children with the signal mask of the
/// calling thread, and Swift's worker threads block most signals, so a server it starts
/// ignores SIGTERM and a test waiting for it to exit hangs forever. Here the child starts
/// with an empty mask and default handlers, and waiting never blocks a thread of the
/// cooperative pool.
public final class ChildProcess: Sendable {
    public let pid: pid_t
    public let executable: String
    /// The reaped wait status: waitpid succeeds only once per exit, so it is kept.
    private let exitStatus = Mutex<Int32?>(nil)

    /// Starts `executable` with `arguments`; stdout and stderr go to `log` (appended) or are
    /// inherited when nil. `environment` entries are added to this process's environment.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], log: URL? = nil
    ) throws {
        self.executable = executable
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let log {
            posix_spawn_file_actions_addopen(&actions, 1, log.path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)

        let merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0)=\($1)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard status == 0 else {
            throw ChildProcessError(description: "cannot start \(executable): \(String(cString: strerror(status)))")
        }
        self.pid = pid
    }

    /// Sends a signal (SIGTERM, SIGKILL, SIGSTOP, SIGCONT…); no effect once it has exited.
    public func signal(_ signal: Int32) {
        guard exitStatus.withLock({ $0 }) == nil else { return }
        kill(pid, signal)
    }

    /// Whether the process has exited (reaping it if so).
    public var hasExited: Bool { reap(block: false) != nil }

    /// Waits for the process to exit and returns its wait status (see `exitCode`), polling
    /// without blocking a thread; nil when `timeout` passes first.
    @discardableResult
    public func waitForExit(timeout: Duration = .seconds(30)) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let status = reap(block: false) { return status }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return reap(block: false)
    }

    /// SIGTERM, then SIGKILL if it has not exited after `grace`; returns the wait status.
    @discardableResult
    public func stop(grace: Duration = .seconds(5)) async -> Int32? {
        signal(SIGCONT)  // a test may have frozen it
        signal(SIGTERM)
        if let status = await waitForExit(timeout: grace) { return status }
        signal(SIGKILL)
        return await waitForExit(timeout: .seconds(5))
    }

    /// Stops it without waiting politely (SIGKILL) and reaps it; safe from `deinit` and
    /// synchronous code.
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

public struct ChildProcessError: Error, CustomStringConvertible {
    public let description: String
    public init(description: String) { self.description = description }
}
