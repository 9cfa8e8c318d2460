import BraidHarness
import Foundation

/// wrk, the gateway group's load: `-t2` (one thread with a single connection), `--latency`,
/// optionally with a Lua script; its output is kept in the run folder as `wrk-<name>.txt`.
struct Wrk {
    let run: RunDirectory
    let executable: String

    init(run: RunDirectory) throws {
        self.run = run
        do {
            executable = try Toolchain.find("wrk")
        } catch {
            throw BenchmarkError("wrk is not installed (apt-get install wrk)")
        }
    }

    /// Runs wrk and returns its figures; any non-2xx response or socket error fails the run.
    func measure(_ name: String, seconds: Int, url: String, script: URL? = nil, connections: Int) async throws -> WrkResult {
        let threads = connections < 2 ? 1 : 2
        let output = run.file("wrk-\(name).txt")
        try? FileManager.default.removeItem(at: output)
        var arguments = ["-t\(threads)", "-c\(connections)", "-d\(seconds)s", "--latency"]
        if let script { arguments += ["-s", script.path] }
        let child = try await run.start(executable, arguments + [url], logFile: output)
        let status = await child.waitForExit(timeout: .seconds(seconds + 120))
        run.forget(child)
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        guard let status, ChildProcess.exitCode(status) == 0 else {
            child.kill9()
            throw BenchmarkError("wrk failed: \(text)")
        }
        guard let result = WrkResult.parse(text) else { throw BenchmarkError("wrk run \(name): \(text)") }
        return result
    }
}
