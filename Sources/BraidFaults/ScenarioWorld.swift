import BraidHarness
import BraidDevSupport
import Foundation

/// One scenario's world: a run folder of its own inside the stack's, whose processes are
/// stopped when the scenario ends however it ends, and fixtures on the stack's servers (or
/// on a Redis the scenario started).
struct ScenarioWorld: Sendable {
    let stack: FaultStack
    /// The scenario's run folder; its logs and request files are there too.
    let run: RunDirectory
    /// Topics `<name>.*`, group `<name>-workers`, key prefix `<name>`.
    let name: String

    /// Runs `body` in a new world for `scenario`, then stops every process started in it.
    static func with<T: Sendable>(_ stack: FaultStack, scenario: String, _ body: (ScenarioWorld) async throws -> T) async throws -> T {
        let name = stack.name(for: scenario)
        let world = ScenarioWorld(stack: stack, run: try await RunDirectory(stack.run.file(name)), name: name)
        do {
            let result = try await body(world)
            await world.run.stopAll()
            return result
        } catch {
            await world.run.stopAll()
            throw error
        }
    }

    /// The fixture of the scenario's processes: on the stack's Redis unless `redisURL` (and
    /// `clusterNodes`) name another. Retries back off from 100 ms, as in RELIABILITY.md's runs.
    func fixture(redisURL: String? = nil, clusterNodes: [String]? = nil) async throws -> WorkerFixture {
        var fixture = try await WorkerFixture(
            name: name, redisURL: redisURL ?? stack.redisURL, redisClusterNodes: clusterNodes ?? (redisURL == nil ? stack.redisClusterNodes : []),
            brokers: stack.brokers, corpus: stack.corpus, run: run, binary: stack.binary)
        fixture.overrides["BRAID_WORKER_RETRY_BACKOFF_MS"] = "100"
        return fixture
    }

    /// A file of the scenario's folder.
    func file(_ name: String) -> URL { run.file(name) }
}

/// Seconds as the scenarios print them.
enum Seconds {
    /// Whole seconds, rounded down (as bash's `$SECONDS` differences count them).
    static func whole(_ duration: Duration) -> Int { Int(duration.components.seconds) }

    /// Tenths: `2.6`.
    static func tenths(_ duration: Duration) -> String {
        String(format: "%.1f", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }
}

/// Waiting for what another process does.
enum Poll {
    /// Asks `condition` every 250 ms until it holds; throws `failure` after `seconds`.
    static func until(seconds: Int, _ failure: String, _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while try await !condition() {
            guard ContinuousClock.now < deadline else { throw HarnessError.failed(failure) }
            try await Task.sleep(for: .milliseconds(250))
        }
    }
}
