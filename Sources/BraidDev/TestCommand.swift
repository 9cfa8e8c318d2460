import ArgumentParser
import BraidHarness
import Foundation

/// `make test`: every test. `swift test` starts the integration tier's servers itself (through
/// the harness, in the test process); then, for a whole run, the client examples against the
/// AsyncAPI document and a stack, the commands of README.md and docs/ against a stack, the
/// console in headless Chromium, the gateway fuzzed against the OpenAPI document, and the
/// attack suite.
struct TestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run every test (after `swift build --build-tests`); arguments go to `swift test`.",
        discussion: """
            With arguments (e.g. --filter Kafka) only `swift test` runs, with them. Without, the examples
            (`braid-dev examples`), the guides' commands (`braid-dev docs`), the browser check (`braid-dev
            browser`), the fuzzing (`braid-dev fuzz`, FUZZ_EXAMPLES=10) and the attack suite (`braid-dev
            attack`) follow, even when the tests failed; the exit status is non-zero if any of the six failed.
            """)

    @Argument(parsing: .captureForPassthrough, help: "Arguments for `swift test`.")
    var arguments: [String] = []

    func run() async throws {
        let swift = try Toolchain.find("swift")
        var failed: [String] = []
        if try await Self.inherit(swift, ["test", "--skip-build"] + arguments) != 0 { failed.append("swift test") }
        if arguments.isEmpty {
            let me = CommandLine.arguments[0]
            if try await Self.inherit(me, ["examples"]) != 0 { failed.append("examples") }
            if try await Self.inherit(me, ["docs"]) != 0 { failed.append("docs") }
            if try await Self.inherit(me, ["browser"]) != 0 { failed.append("browser") }
            let examples = ProcessInfo.processInfo.environment["FUZZ_EXAMPLES"] ?? "10"
            if try await Self.inherit(me, ["fuzz", "--examples", examples]) != 0 { failed.append("fuzz") }
            if try await Self.inherit(me, ["attack"]) != 0 { failed.append("attack") }
        }
        guard failed.isEmpty else {
            Say.line("test", "FAILED: \(failed.joined(separator: ", "))")
            throw ExitCode(1)
        }
        Say.line("test", "passed")
    }

    /// Runs a command that shares this terminal (and its Ctrl-C) and returns its exit status.
    static func inherit(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], directory: URL? = nil
    ) async throws -> Int32 {
        let child = try await ChildProcess.start(
            executable, arguments, environment: environment, log: nil, ownProcessGroup: false, directory: directory)
        let status = await child.waitForExit(timeout: .seconds(86_400)) ?? -1
        return ChildProcess.exitCode(status) ?? 128 + (ChildProcess.terminatingSignal(status) ?? 0)
    }
}
