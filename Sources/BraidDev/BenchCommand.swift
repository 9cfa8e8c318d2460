import ArgumentParser
import BraidBenchmarks
import BraidHarness
import Foundation
import Synchronization

/// `make bench [ONLY=<group>]`: the benchmark groups (Benchmarks/BraidBenchmarks) on a Redis
/// server and broker started here, every figure against a baseline measured in the same run.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Run the benchmarks: FIGURE and RATIO lines against baselines measured in the same run.",
        discussion: """
            Groups, in the order a whole run takes them: \(BenchmarkGroup.allCases.map(\.rawValue).joined(separator: ", ")).
            Needs release builds of braid and braid-dev (`swift build -c release`; `make bench` does it).

            Environment (default in parentheses):
            \(BenchmarkSettings.help)
            """)

    @Argument(help: "One group, or all (default).") var group = "all"

    func validate() throws {
        _ = try groups()
        _ = try settings()
    }

    func run() async throws {
        let settings = try settings()
        let groups = try groups()
        let say = { @Sendable (message: String) in Say.line("bench", message) }
        let signals = Signals.stream()
        let run = try await RunDirectory.scratch("bench")
        // Ctrl-C or SIGTERM: stop every process of the run (servers, services, wrk …), then leave.
        let interrupted = Interrupted()
        let watcher = Task {
            for await signal in signals {
                interrupted.note(signal)
                say("stopping (signal \(signal))")
                await run.stopAll()
                run.remove()
                Foundation.exit(128 + signal)
            }
        }
        defer { watcher.cancel() }
        do {
            try await BenchmarkRun.run(groups, settings: settings, in: run, braid: BraidService.binary, say: say)
        } catch {
            // A group failing because a signal stopped its servers: the watcher ends the process.
            while interrupted.signal != nil { try? await Task.sleep(for: .seconds(60)) }
            await run.stopAll()
            say("\(error)")
            say("logs of this run are kept in \(run.url.path)")
            throw ExitCode.failure
        }
        await run.stopAll()
        run.remove()
    }

    private func groups() throws -> [BenchmarkGroup] {
        if group == "all" { return BenchmarkGroup.allCases }
        guard let one = BenchmarkGroup(rawValue: group) else {
            throw ValidationError(
                "no benchmark group '\(group)' (have: \(BenchmarkGroup.allCases.map(\.rawValue).joined(separator: ", ")), or all)")
        }
        return [one]
    }

    private func settings() throws -> BenchmarkSettings {
        do {
            return try BenchmarkSettings(environment: ProcessInfo.processInfo.environment)
        } catch {
            throw ValidationError(error.message)
        }
    }
}

/// The signal that interrupted a run, if one did.
private final class Interrupted: Sendable {
    private let received = Mutex<Int32?>(nil)

    var signal: Int32? { received.withLock { $0 } }

    func note(_ signal: Int32) {
        received.withLock { $0 = signal }
    }
}
