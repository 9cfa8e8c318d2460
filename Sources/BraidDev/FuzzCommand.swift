import ArgumentParser
import BraidHarness
import Foundation

/// `make fuzz`: schemathesis against `Schemas/openapi.yaml` on a real `braid gateway` (small
/// corpus, Redis and broker started here). Fails on any 5xx and on any response that does not
/// conform to the document: status code, content type, body schema.
struct FuzzCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fuzz", abstract: "Fuzz a local gateway against Schemas/openapi.yaml with schemathesis.")

    @Option(help: "Examples generated per operation.") var examples = Int(ProcessInfo.processInfo.environment["FUZZ_EXAMPLES"] ?? "") ?? 50
    @Option(help: "Hypothesis seed: the same seed generates the same requests.")
    var seed = ProcessInfo.processInfo.environment["FUZZ_SEED"] ?? "20240611"
    @Option(help: "Schemathesis checks.")
    var checks = ProcessInfo.processInfo.environment["FUZZ_CHECKS"]
        ?? "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance"
    @Argument(parsing: .captureForPassthrough, help: "Arguments for `schemathesis run`.") var extra: [String] = []

    func run() async throws {
        let say = { (message: String) in Say.line("fuzz", message) }
        // schemathesis 3.39 breaks on Hypothesis > 6.131.14 ("'many' object has no attribute
        // 'more'" for every operation); say so plainly instead.
        let version = try await ChildProcess.check(Toolchain.python, ["-c", "import hypothesis; print(hypothesis.__version__)"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard version.split(separator: ".").compactMap({ Int($0) }).lexicographicallyPrecedes([6, 131, 15]) else {
            throw ValidationError("schemathesis needs hypothesis <= 6.131.14 and .venv has \(version): pin it in Deploy/local/bootstrap.sh")
        }
        let run = try await RunDirectory.scratch("fuzz")
        var status: Int32 = 0
        do {
            let stack = try await LocalStack.start(in: run, partitions: 2, documents: 2_000, users: 50, say: say)
            // A generous live deadline: a loaded 2-core CI machine running a debug build must not
            // turn into 503s (deadlines have a test of their own).
            let gateway = try await BraidService.gateway(
                in: run, name: "fuzz-gateway",
                environment: stack.environment.merging([
                    "BRAID_GATEWAY_HOST": "127.0.0.1", "BRAID_GATEWAY_LIVE_TIMEOUT_MS": ProcessInfo.processInfo.environment["FUZZ_LIVE_TIMEOUT_MS"] ?? "10000",
                ]) { $1 })
            say("gateway listening on \(gateway.baseURL) (pid \(gateway.process.pid), log \(run.file("fuzz-gateway.log").path))")
            say("schemathesis: \(examples) examples per operation, seed \(seed), checks \(checks)")
            // From the run folder, so nothing (.hypothesis/) lands in the checkout; no example
            // database, no telemetry, no colours (CI has no TTY), loopback only.
            let child = try await ChildProcess.start(
                try Toolchain.find("schemathesis"),
                [
                    "run", Toolchain.root.appendingPathComponent("Schemas/openapi.yaml").path, "--base-url", gateway.baseURL,
                    "--checks", checks, "--hypothesis-max-examples", "\(examples)", "--hypothesis-seed", seed,
                    "--hypothesis-database", "none", "--request-timeout", "30000", "--validate-schema", "true",
                    "--code-sample-style", "curl", "--no-color",
                    // POST /v1/events takes a body and, since impression ids are bound to their
                    // caller, the credential headers of three security schemes; Hypothesis then
                    // discards enough drafts to call it a health failure, though every case it
                    // keeps is sent and checked.
                    "--hypothesis-suppress-health-check", "filter_too_much",
                ] + extra,
                environment: [
                    "PYTHONPATH": Toolchain.root.appendingPathComponent("Deploy/local").path, "SCHEMATHESIS_HOOKS": "fuzz_hooks",
                    "SCHEMATHESIS_TELEMETRY": "false", "NO_COLOR": "1",
                ],
                log: nil, ownProcessGroup: false, directory: run.url)
            let raw = await child.waitForExit(timeout: .seconds(86_400)) ?? -1
            status = ChildProcess.exitCode(raw) ?? 1
            if status != 0 {
                let log = (try? String(contentsOf: run.file("fuzz-gateway.log"), encoding: .utf8)) ?? ""
                say("last lines of the gateway log:\n" + log.split(separator: "\n").suffix(40).joined(separator: "\n"))
            }
        } catch {
            await run.stopAll()
            run.remove()
            throw error
        }
        await run.stopAll()
        run.remove()
        guard status == 0 else {
            say("FAILED (schemathesis exit status \(status))")
            throw ExitCode(status)
        }
        say("passed")
    }
}
