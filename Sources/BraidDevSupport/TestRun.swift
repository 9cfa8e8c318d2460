@_exported import BraidHarness
import BraidHarness
import Foundation

/// The harness run folder that processes a test starts belong to: the folder of the servers
/// this process started, or one of its own when the `BRAID_TEST_*` variables name servers
/// started elsewhere. Either way, every child is recorded there and dies with the test process.
public enum TestRun {
    public static func directory() async throws -> RunDirectory {
        if let run = TestServers.runDirectory { return run }
        return try await own.value
    }

    private static let own = Task { try await RunDirectory.scratch("test") }

    /// Starts a process of a test (a `braid` service, a helper server) in the run folder;
    /// `log` is its log file there.
    public static func start(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], log: URL
    ) async throws -> ChildProcess {
        try await directory().start(executable, arguments, environment: environment, logFile: log)
    }
}
