import Foundation

/// A private Redis Cluster (3 primaries + 3 replicas) for tests that kill nodes, started and
/// stopped by the same shell helpers `make test` uses for the shared cluster
/// (Deploy/local/lib.sh: braid_start_redis_cluster, braid_stop_redis_cluster). Its pid files
/// live in the test run folder, where `make test` stops anything left behind.
public final class RedisClusterProcess: Sendable {
    public let name: String
    /// Client ports of the six nodes; the first three started as primaries.
    public let ports: [Int]

    public var nodes: [String] { ports.map { "127.0.0.1:\($0)" } }
    public var urls: [String] { nodes.map { "redis://\($0)" } }

    private init(name: String, ports: [Int]) {
        self.name = name
        self.ports = ports
    }

    /// Starts a cluster, runs `body`, and stops the cluster whether `body` returns or throws.
    /// `nodeTimeout` is the nodes' cluster-node-timeout (how soon a dead primary is noticed).
    public static func with<T: Sendable>(
        nodeTimeout: Duration = .milliseconds(1000), _ body: (RedisClusterProcess) async throws -> T
    ) async throws -> T {
        let name = TestEnvironment.uniqueName("cluster")
        let milliseconds = nodeTimeout.components.seconds * 1000 + nodeTimeout.components.attoseconds / 1_000_000_000_000_000
        try await shell("braid_start_redis_cluster \(name)", environment: ["BRAID_CLUSTER_NODE_TIMEOUT": "\(milliseconds)"])
        let portsFile = try TestEnvironment.runDirectory().appendingPathComponent("cluster-\(name)/ports")
        let ports = try String(contentsOf: portsFile, encoding: .utf8).split(separator: "\n").compactMap { Int($0) }
        let cluster = RedisClusterProcess(name: name, ports: ports)
        do {
            let result = try await body(cluster)
            try? await cluster.stop()
            return result
        } catch {
            try? await cluster.stop()
            throw error
        }
    }

    /// The pid of the node listening on `port`.
    public func pid(port: Int) throws -> pid_t {
        let file = try TestEnvironment.runDirectory().appendingPathComponent("redis-cluster-\(port).pid")
        guard let pid = pid_t(try String(contentsOf: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw ChildProcessError(description: "no pid in \(file.path)")
        }
        return pid
    }

    /// SIGKILLs the node on `port`, as a crash would.
    public func kill(port: Int) throws {
        Foundation.kill(try pid(port: port), SIGKILL)
    }

    public func stop() async throws {
        try await Self.shell("braid_stop_redis_cluster \(name)")
    }

    private static func shell(_ command: String, environment: [String: String] = [:]) async throws {
        let directory = try TestEnvironment.runDirectory()
        let library = RepositoryPaths.root.appendingPathComponent("Deploy/local/lib.sh").path
        let log = directory.appendingPathComponent("cluster-helper.log")
        let child = try ChildProcess(
            "/bin/bash", ["-c", "source '\(library)' && \(command)"],
            environment: environment.merging(["BRAID_RUN_DIR": directory.path]) { $1 }, log: log)
        let status = await child.waitForExit(timeout: .seconds(60))
        guard let status, ChildProcess.exitCode(status) == 0 else {
            throw ChildProcessError(description: "'\(command)' failed (status \(status.map(String.init) ?? "none")); see \(log.path)")
        }
    }
}
