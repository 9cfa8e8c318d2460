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
        let timings = Toolchain.root.appendingPathComponent(".run/test-timings.tsv")
        try? FileManager.default.createDirectory(at: timings.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? FileManager.default.removeItem(at: timings)
        let started = ContinuousClock.now
        if try await Self.inherit(swift, ["test", "--skip-build"] + arguments, environment: ["BRAID_TEST_TIMINGS": timings.path]) != 0 {
            failed.append("swift test")
        }
        Self.summarize(timings, wall: started.duration(to: .now))
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

    /// Where `swift test`'s minutes went: the one-at-a-time tiers' total, and their slowest tests
    /// (a parameterized test summed over its cases).
    static func summarize(_ file: URL, wall: Duration) {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return }
        var byTest: [String: Double] = [:]
        var byTier: [String: Double] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: "\t", maxSplits: 2).map(String.init)
            guard fields.count == 3, let seconds = Double(fields[0]) else { continue }
            byTest["\(fields[1]) \(fields[2])", default: 0] += seconds
            byTier[fields[1], default: 0] += seconds
        }
        let tiers = byTier.sorted { $0.key < $1.key }.map { String(format: "%@ %.0f s", $0.key, $0.value) }.joined(separator: ", ")
        Say.line("test", String(format: "swift test: %.0f s; one at a time: %@", Double(wall.components.seconds), tiers))
        for (name, seconds) in byTest.sorted(by: { $0.value > $1.value }).prefix(15) {
            Say.line("test", String(format: "%7.1f s  %@", seconds, name))
        }
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
