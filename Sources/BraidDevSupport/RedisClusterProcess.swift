import BraidHarness
import Foundation

/// A private Redis Cluster (3 primaries + 3 replicas) for tests that kill nodes, started
/// through the harness in the test run folder.
public final class RedisClusterProcess: Sendable {
    private let cluster: RedisCluster

    public var name: String { cluster.name }
    /// Client ports of the six nodes; the first three started as primaries.
    public var ports: [Int] { cluster.ports }
    public var nodes: [String] { cluster.nodes }
    public var urls: [String] { cluster.urls }

    private init(cluster: RedisCluster) {
        self.cluster = cluster
    }

    /// Starts a cluster, runs `body`, and stops the cluster whether `body` returns or throws.
    /// `nodeTimeout` is the nodes' cluster-node-timeout (how soon a dead primary is noticed).
    public static func with<T: Sendable>(
        nodeTimeout: Duration = .milliseconds(1000), _ body: (RedisClusterProcess) async throws -> T
    ) async throws -> T {
        let run = try await TestRun.directory()
        let cluster = RedisClusterProcess(
            cluster: try await RedisCluster.start(in: run, name: TestEnvironment.uniqueName("cluster"), nodeTimeout: nodeTimeout))
        do {
            let result = try await body(cluster)
            await cluster.stop()
            return result
        } catch {
            await cluster.stop()
            throw error
        }
    }

    /// The pid of the node listening on `port`.
    public func pid(port: Int) throws -> pid_t {
        guard let process = cluster.process(port: port) else { throw ChildProcessError(description: "no node of \(name) on port \(port)") }
        return process.pid
    }

    /// SIGKILLs the node on `port`, as a crash would.
    public func kill(port: Int) throws {
        cluster.kill(port: port)
    }

    public func stop() async {
        await cluster.stop()
    }
}
