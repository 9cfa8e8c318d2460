import BraidHarness
import Foundation

/// What every group runs with: the run folder, the Redis server and broker started for the
/// whole run, the `braid` binary and the settings.
public struct BenchmarkContext: Sendable {
    public let run: RunDirectory
    public let redis: RedisServer
    public let broker: KafkaBroker
    /// The `braid` binary the groups start services and commands of.
    public let braid: String
    public let settings: BenchmarkSettings
    /// Tells the person running the benchmarks what is happening (stderr).
    public let say: @Sendable (String) -> Void

    /// Distinguishes this run's topics, groups and key prefixes from any other run's.
    var tag: Int32 { getpid() }

    /// `braid seed` of a demo corpus of `documents` recipes and `users` users into `file`.
    func seed(_ file: URL, documents: Int = 20_000, users: Int = 200) async throws {
        let (status, output) = try await ChildProcess.run(
            braid, ["seed", "--docs", "\(documents)", "--users", "\(users)", "--db", file.path], timeout: .seconds(600))
        guard status == 0 else { throw BenchmarkError("braid seed failed: \(output.suffix(2_000))") }
    }

    /// The last `count` lines of a file (a log), for error messages.
    static func tail(_ file: URL?, _ count: Int = 20) -> String {
        guard let file, let text = try? String(contentsOf: file, encoding: .utf8) else { return "" }
        return text.split(separator: "\n").suffix(count).joined(separator: "\n")
    }
}
