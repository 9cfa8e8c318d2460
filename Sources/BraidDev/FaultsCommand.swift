import ArgumentParser
import BraidFaults
import BraidHarness
import Foundation
import Logging

/// `make faults`: the fault scenarios (Tests/BraidFaults) on a Redis, a broker and a corpus
/// of 5,000 recipes started here, one after the other. Prints `FAULT <scenario> <figure>
/// <value>` lines and `FAULT <scenario> PASS` or `FAIL: <reason>`; exits non-zero when any
/// scenario failed. RELIABILITY.md records the runs.
struct FaultsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "faults",
        abstract: "Run the fault scenarios on loopback and check their outcomes.",
        discussion: """
            Scenarios: \(FaultCatalog.names.joined(separator: ", ")); run only when named: \
            \(FaultCatalog.namedOnly.map(\.name).joined(separator: ", ")) (PREVIOUS=<the previous release's braid>). \
            BRAID=<path> runs that braid binary (default: the one next to braid-dev).
            """)

    @Argument(help: "A scenario, or all.") var scenario = "all"

    func validate() throws {
        guard FaultCatalog.select(scenario) != nil else {
            let named = FaultCatalog.names + FaultCatalog.namedOnly.map(\.name)
            throw ValidationError("no fault scenario '\(scenario)' (have: \(named.joined(separator: " ")); or all)")
        }
    }

    func run() async throws {
        let scenarios = FaultCatalog.select(scenario) ?? []
        // The scenarios' own Redis and Kafka clients measure; what they log about a node they
        // were meant to lose is noise between the FAULT lines.
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .error
            return handler
        }
        // Straight to the file descriptor: FAULT lines as they come, also through a pipe.
        let emit: @Sendable (String) -> Void = { FileHandle.standardOutput.write(Data(($0 + "\n").utf8)) }
        let say: @Sendable (String) -> Void = { Say.line("faults", $0) }
        let signals = Signals.stream()
        let binary = BraidService.binary
        emit(try await ChildProcess.check(binary, ["version"]).trimmingCharacters(in: .whitespacesAndNewlines))
        let run = try await RunDirectory.scratch("faults")
        let failed: [String]? = await withTaskGroup(of: [String]?.self) { group in
            group.addTask {
                do {
                    let stack = try await FaultStack.start(in: run, binary: binary, say: say)
                    emit(FaultRunner.machineLine())
                    return await FaultRunner.run(
                        scenarios, on: stack,
                        print: emit,
                        diagnose: { FileHandle.standardError.write(Data(($0 + "\n").utf8)) })
                } catch {
                    say("\(error)")
                    return scenarios.map(\.name)
                }
            }
            group.addTask {
                for await _ in signals { return nil }
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        await run.stopAll()
        // A failed scenario's FAULT line points at its logs: they stay until the next run
        // reclaims them.
        if failed?.isEmpty == true { run.remove() } else { say("logs kept in \(run.url.path)") }
        guard let failed else {
            say("interrupted")
            throw ExitCode(130)
        }
        guard failed.isEmpty else {
            say("\(failed.count) scenario(s) failed: \(failed.joined(separator: " "))")
            throw ExitCode(1)
        }
        say("every scenario passed")
    }
}
