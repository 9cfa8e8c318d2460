import CBraidSpawn
import Foundation
import Synchronization

/// Starts child processes from one thread that lives as long as the process.
///
/// Linux delivers a child's parent-death signal when the *thread* that forked it exits, not
/// the process. Swift's cooperative pool and Dispatch retire idle threads, so a child forked
/// from one of them would be killed at a random moment; forking from this thread ties every
/// child's life to the harness process itself.
final class Spawner: Sendable {
    static let shared = Spawner()

    struct Request: Sendable {
        var executable: String
        var arguments: [String]
        var environment: [String: String]
        var stdin: Int32
        var stdout: Int32
        var stderr: Int32
        var newProcessGroup: Bool
        var directory: String?
    }

    private struct Job: Sendable {
        var request: Request
        var reply: @Sendable (Result<pid_t, HarnessError>) -> Void
    }

    private let jobs = Mutex<[Job]>([])
    private let wakeUp = DispatchSemaphore(value: 0)

    private init() {
        let thread = Thread { [self] in
            while true {
                wakeUp.wait()
                for job in jobs.withLock({ jobs in defer { jobs.removeAll() }; return jobs }) {
                    job.reply(Self.spawn(job.request))
                }
            }
        }
        thread.name = "braid-harness-spawner"
        thread.start()
    }

    /// Starts the process described by `request` and returns its pid.
    func spawn(_ request: Request) async throws(HarnessError) -> pid_t {
        let result: Result<pid_t, HarnessError> = await withCheckedContinuation { continuation in
            jobs.withLock { $0.append(Job(request: request) { continuation.resume(returning: $0) }) }
            wakeUp.signal()
        }
        return try result.get()
    }

    private static func spawn(_ request: Request) -> Result<pid_t, HarnessError> {
        let argv = ([request.executable] + request.arguments).map { strdup($0) } + [nil]
        let envp = request.environment.map { strdup("\($0)=\($1)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let status = braid_spawn(
            request.executable, argv, envp, request.directory, request.stdin, request.stdout, request.stderr,
            request.newProcessGroup ? 1 : 0, 1, &pid)
        guard status == 0 else {
            return .failure(.cannotStart(request.executable, reason: String(cString: strerror(status))))
        }
        return .success(pid)
    }
}
