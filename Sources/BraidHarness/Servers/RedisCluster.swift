import Foundation

/// A Redis Cluster of 3 primaries with one replica each on free loopback ports.
///
/// Nodes notice a dead peer after `nodeTimeout`, and keep serving the slots they have while
/// another primary is down (`cluster-require-full-coverage no`).
public final class RedisCluster: Sendable {
    public let name: String
    /// Client ports of the six nodes; the first three started as primaries.
    public let ports: [Int]
    /// The node processes, in the order of ``ports``.
    public let processes: [ChildProcess]
    /// Where every node runs (one address, a port each).
    public let placement: Placement
    private let run: RunDirectory
    private let directory: URL

    /// `<address>:<port>` of every node.
    public var nodes: [String] { ports.map { "\(placement.address):\($0)" } }
    /// `redis://<address>:<port>` of every node.
    public var urls: [String] { nodes.map { "redis://\($0)" } }

    private init(name: String, ports: [Int], processes: [ChildProcess], placement: Placement, run: RunDirectory, directory: URL) {
        self.name = name
        self.ports = ports
        self.processes = processes
        self.placement = placement
        self.run = run
        self.directory = directory
    }

    /// Starts the six nodes, joins them into a cluster, and waits until every node sees all
    /// six and state ok.
    public static func start(
        in run: RunDirectory, name: String, nodeTimeout: Duration = .milliseconds(2000), on placement: Placement = .loopback
    ) async throws(HarnessError) -> RedisCluster {
        let server = try Toolchain.find("redis-server")
        let cli = try Toolchain.find("redis-cli")
        let free = try Ports.free(count: 12)
        let ports = Array(free[0..<6])
        let directory = run.file("cluster-\(name)")
        let timeoutMs = nodeTimeout.components.seconds * 1000 + nodeTimeout.components.attoseconds / 1_000_000_000_000_000
        var processes: [ChildProcess] = []
        for (index, port) in ports.enumerated() {
            let folder = directory.appendingPathComponent("\(port)")
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw .failed("cannot create \(folder.path): \(error)")
            }
            processes.append(
                try await run.start(
                    server,
                    [
                        "--port", "\(port)", "--bind", placement.address] + placement.protectedModeOff + [
                        "--cluster-enabled", "yes", "--cluster-port", "\(free[index + 6])",
                        "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "\(timeoutMs)",
                        "--cluster-require-full-coverage", "no", "--save", "", "--appendonly", "no", "--dir", folder.path,
                        "--maxmemory-policy", "volatile-lfu",
                        "--daemonize", "no",
                    ],
                    log: "cluster-\(name)/\(port)/redis.log", namespace: placement.namespace))
        }
        let cluster = RedisCluster(name: name, ports: ports, processes: processes, placement: placement, run: run, directory: directory)
        do {
            for (port, process) in zip(ports, processes) {
                try await Readiness.wait(for: "cluster node on port \(port)", process: process, timeout: .seconds(20)) {
                    Readiness.log(process.log, contains: "Ready to accept connections")
                }
            }
            // The first three addresses given to --cluster create become the primaries.
            try await ChildProcess.check(cli, ["--cluster", "create"] + cluster.nodes + ["--cluster-replicas", "1", "--cluster-yes"])
            for (port, process) in zip(ports, processes) {
                try await Readiness.wait(for: "cluster state ok on port \(port)", process: process, timeout: .seconds(30)) {
                    guard let info = try? await ChildProcess.run(cli, ["-h", placement.address, "-p", "\(port)", "cluster", "info"]).output
                    else { return false }
                    return info.contains("cluster_state:ok") && info.contains("cluster_known_nodes:6")
                }
            }
        } catch {
            await cluster.stop()
            throw error
        }
        return cluster
    }

    /// The process of the node listening on `port`.
    public func process(port: Int) -> ChildProcess? {
        ports.firstIndex(of: port).map { processes[$0] }
    }

    /// SIGKILLs the node on `port`, as a crash would.
    public func kill(port: Int) {
        process(port: port)?.signal(SIGKILL)
    }

    /// Stops every node and removes the cluster's folder.
    public func stop() async {
        for process in processes { await run.stop(process, grace: .seconds(2)) }
        try? FileManager.default.removeItem(at: directory)
    }
}
