import ArgumentParser
import BraidHarness
import Foundation

/// `make browser`: the console in headless Chromium (Debian's chromium and chromium-driver,
/// through Selenium from .venv) against a real `braid gateway` and `braid worker` on a Redis
/// and broker started here, with a small corpus, the demo requests, one unreadable request (a
/// dead letter) and team-draft clicks. `Deploy/local/browser.py` checks what each page draws,
/// saves one screenshot per page under .run/console/, and fails on any JavaScript error.
struct BrowserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "browser", abstract: "Check the console in headless Chromium against a local stack.")

    @Option(help: "Partitions of every topic.") var partitions = 3

    func run() async throws {
        for tool in ["chromium", "chromedriver"] { _ = try Toolchain.find(tool) }
        let say = { (message: String) in Say.line("browser", message) }
        let run = try await RunDirectory.scratch("browser")
        let status: Int32
        do {
            let stack = try await LocalStack.start(in: run, partitions: partitions, documents: 2_000, users: 50, say: say)
            // Two arms, one of them team-draft (the experiments page) with a sequential design that
            // looks every 2 decided sessions (the clicks below take a few looks), and samples every second.
            let config = run.file("braid.yaml")
            try """
                interleaving:
                  arms:
                    - {name: control, weight: 50}
                    - {name: draft, weight: 50, mode: team_draft, sequential: {margin: 0.5, look_every: 2}}
                console:
                  sample_interval_ms: 1000

                """.write(to: config, atomically: true, encoding: .utf8)
            let environment = stack.environment.merging([
                "BRAID_WORKER_METRICS_PORT": "0", "BRAID_GATEWAY_LIVE_TIMEOUT_MS": "10000", "BRAID_WORKER_RETRY_BACKOFF_MS": "50",
            ]) { $1 }
            _ = try await BraidService.worker(in: run, arguments: ["--config", config.path], environment: environment)
            let gateway = try await BraidService.gateway(in: run, arguments: ["--config", config.path], environment: environment)
            // Demo content as `make run` publishes it, for user u00002 and the home and profile feeds.
            try await stack.publish(
                DemoRequests.demo(queries: ["curry rice", "chicken", "pasta"], users: ["u00002"])
                    .filter { !$0.contains("popular_in_category") })
            // One request a worker cannot read: it lands in the dead-letter topic with its reason.
            let letter = run.file("dead-letter.txt")
            try "console-browser-test\tthis is not a request\n".write(to: letter, atomically: true, encoding: .utf8)
            try await ChildProcess.check(
                try Toolchain.find("kcat"), ["-P", "-b", stack.broker.brokers, "-t", "braid.requests", "-K", "\t", "-l", letter.path])
            status = try await TestCommand.inherit(
                Toolchain.python,
                [
                    Toolchain.root.appendingPathComponent("Deploy/local/browser.py").path, "--base-url", gateway.baseURL,
                    "--out", Toolchain.root.appendingPathComponent(".run/console").path, "--partitions", "\(partitions)",
                ])
            if status != 0 {
                say("FAILED; last lines of the gateway and worker logs:")
                for name in ["gateway.log", "worker.log"] {
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
        say("passed; screenshots in .run/console/")
    }
}
