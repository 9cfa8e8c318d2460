import ArgumentParser
import BraidHarness
import Foundation

/// `make docs`: every shell command README.md and docs/ tell a reader to run, run against a
/// stack started as `make run` starts it (same corpus, demo requests and settings, on make run's
/// ports when they are free; otherwise on free ones, with the blocks' `127.0.0.1:8080` and the
/// other default addresses rewritten to them).
///
/// File by file, each file's ```sh blocks run in order in one bash (`set -euo pipefail`), as a
/// reader pastes them into one terminal; a failing command fails the run and names its block.
/// Blocks marked `> Not run by the tests: <reason>` are listed with their reason; a shell-like
/// block with neither is an error (``DocBlocks``).
struct DocsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "docs", abstract: "Run the shell blocks of README.md and docs/ against a local stack.",
        discussion: "DOCS=<file> (or --only) runs one file's blocks; BRAID_DOCS sets the corpus size (20000, as make run).")

    @Option(help: "Run only this file's blocks (a path such as docs/feeds.md).")
    var only = ProcessInfo.processInfo.environment["DOCS"].flatMap { $0.isEmpty ? nil : $0 }

    /// README.md, then every guide under docs/ in name order.
    static func files() throws -> [URL] {
        let root = Toolchain.root
        let docs = root.appendingPathComponent("docs")
        let guides = try FileManager.default.contentsOfDirectory(at: docs, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "md" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
        return [root.appendingPathComponent("README.md")] + guides
    }

    func run() async throws {
        let say = { (message: String) in Say.line("docs", message) }
        let root = Toolchain.root.path + "/"
        var parsed: [DocBlocks] = []
        for url in try Self.files() {
            let name = url.path.replacingOccurrences(of: root, with: "")
            if let only, only != name { continue }
            parsed.append(DocBlocks.parse(try String(contentsOf: url, encoding: .utf8), file: name))
        }
        guard !parsed.isEmpty else { throw ValidationError("no file \(only ?? "") among README.md and docs/*.md") }
        for file in parsed {
            for block in file.notRun { print("DOCS not-run \(file.file):\(block.line) \(block.notRunBecause ?? "")") }
        }
        let unmarked = parsed.flatMap(\.unmarked)
        guard unmarked.isEmpty else {
            say("shell blocks that are neither ```sh (run) nor marked '\(DocBlocks.marker) <reason>': \(unmarked.joined(separator: ", "))")
            throw ExitCode(1)
        }

        let documents = Int(ProcessInfo.processInfo.environment["BRAID_DOCS"] ?? "") ?? 20_000
        let run = try await RunDirectory.scratch("docs")
        var failed: [String] = []
        do {
            // make run's own ports when they are free (CI, and a machine without make run up): the
            // blocks then run exactly as a reader runs them. Otherwise free ports, with the blocks'
            // addresses rewritten and the stack's in the environment of `braid` commands.
            let defaults = [6379, 9092, 9464, 8080]
            let exact = defaults.allSatisfy(Ports.isFree)
            if !exact { say("make run's ports are in use: the blocks' addresses are rewritten to a stack on free ports") }
            let stack = try await LocalStack.start(
                in: run, redisPort: exact ? defaults[0] : nil, kafkaPort: exact ? defaults[1] : nil, partitions: 3, documents: documents,
                users: 500, say: say)
            let metricsPort = exact ? defaults[2] : try Ports.free()
            let services = stack.environment.merging(["BRAID_WORKER_METRICS_PORT": "\(metricsPort)"]) { $1 }
                .merging(RunSettings.services(gatewayHost: nil)) { $1 }
            let worker = try await BraidService.worker(in: run, environment: services, assignedFrom: "braid.requests")
            let gateway = try await BraidService.gateway(in: run, port: exact ? defaults[3] : nil, environment: services)
            try await stack.publish(DemoRequests.demo(), name: "demo-requests")
            let addresses = exact ? [:] : [
                "127.0.0.1:8080": "127.0.0.1:\(gateway.port ?? 0)", "127.0.0.1:6379": "127.0.0.1:\(stack.redis.port)",
                "127.0.0.1:9092": stack.broker.brokers, "127.0.0.1:9464": "127.0.0.1:\(metricsPort)",
                "redis-cli -p 6379": "redis-cli -p \(stack.redis.port)",
            ]
            // What a reader's shell has: nothing of Braid's, unless the ports differ.
            let environment = exact ? [:] : stack.environment
            say("worker pid \(worker.process.pid), gateway \(gateway.baseURL)")
            try await Task.sleep(for: .seconds(2))  // the demo requests materialize, as after `make run` prints its address
            for file in parsed where !file.runnable.isEmpty {
                let script = run.file("\(file.file.replacingOccurrences(of: "/", with: "_")).sh")
                try Data(file.script(rewriting: addresses).utf8).write(to: script)
                let started = ContinuousClock.now
                let status = try await TestCommand.inherit("/bin/bash", [script.path], environment: environment, directory: Toolchain.root)
                let seconds = started.duration(to: .now) / .seconds(1)
                print("DOCS \(status == 0 ? "PASS" : "FAIL") \(file.file) \(file.runnable.count) blocks \(String(format: "%.1f", seconds)) s")
                if status != 0 { failed.append(file.file) }
            }
        } catch {
            await run.stopAll()
            throw error
        }
        await run.stopAll()
        guard failed.isEmpty else {
            say("FAILED: \(failed.joined(separator: ", ")) (the last '::block' line above names the failing block; logs in \(run.url.path))")
            throw ExitCode(1)
        }
        run.remove()
        say("passed: \(parsed.map(\.runnable.count).reduce(0, +)) blocks run, \(parsed.map(\.notRun.count).reduce(0, +)) not run (listed above)")
    }
}
