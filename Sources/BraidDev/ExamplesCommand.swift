import ArgumentParser
import BraidHarness
import Foundation

/// `make examples`: the client examples against `Schemas/asyncapi.yaml` and a real stack. Starts
/// a Redis, a broker (Braid's topics plus a scratch topic), a small corpus, `braid worker` and
/// `braid gateway`, then runs the examples' tests with pytest from .venv
/// (`Examples/python/test_publish_request.py`): the AsyncAPI document validates, every message
/// the Python producer example builds matches it (key, headers, payload), and a request it
/// publishes is materialized by the worker and served by the gateway.
struct ExamplesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "examples", abstract: "Test the client examples (Examples/) against Schemas/asyncapi.yaml and a local stack.")

    /// Where the Python example's test publishes its requests twice (itself and `braid publish`)
    /// to compare keys and partitions; no worker reads it.
    static let keyTopic = "braid.examples.keys"

    @Argument(parsing: .captureForPassthrough, help: "Arguments for pytest.") var extra: [String] = []

    func run() async throws {
        let say = { (message: String) in Say.line("examples", message) }
        let run = try await RunDirectory.scratch("examples")
        let status: Int32
        do {
            let stack = try await LocalStack.start(
                in: run, partitions: 3, topics: KafkaBroker.defaultTopics + [Self.keyTopic], documents: 2_000, users: 50, say: say)
            let environment = stack.environment.merging([
                "BRAID_WORKER_METRICS_PORT": "0", "BRAID_GATEWAY_LIVE_TIMEOUT_MS": "10000", "BRAID_WORKER_RETRY_BACKOFF_MS": "50",
            ]) { $1 }
            let worker = try await BraidService.worker(in: run, environment: environment, assignedFrom: "braid.requests")
            let gateway = try await BraidService.gateway(in: run, environment: environment)
            say("worker pid \(worker.process.pid), gateway \(gateway.baseURL); pytest Examples/python")
            // From the run folder (no .pytest_cache in the checkout), without third-party plugins
            // (schemathesis registers one) so that only these tests' own imports count.
            status = try await TestCommand.inherit(
                Toolchain.python,
                ["-m", "pytest", "-p", "no:cacheprovider", "-q", "--rootdir", run.url.path,
                 Toolchain.root.appendingPathComponent("Examples/python").path] + extra,
                environment: environment.merging([
                    "BRAID_EXAMPLES_GATEWAY": gateway.baseURL, "BRAID_EXAMPLES_KEY_TOPIC": Self.keyTopic, "BRAID": BraidService.binary,
                    "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONDONTWRITEBYTECODE": "1",
                ]) { $1 },
                directory: run.url)
            if status != 0 {
                say("FAILED; last lines of the worker and gateway logs:")
                for name in ["worker.log", "gateway.log"] {
                    let text = (try? String(contentsOf: run.file(name), encoding: .utf8)) ?? ""
                    FileHandle.standardError.write(Data(text.split(separator: "\n").suffix(20).joined(separator: "\n").utf8 + [10]))
                }
            }
        } catch {
            await run.stopAll()
            run.remove()
            throw error
        }
        await run.stopAll()
        run.remove()
        guard status == 0 else { throw ExitCode(status) }
        say("passed")
    }
}
