import BraidHarness
import Foundation
import Synchronization

/// The servers of the integration tier, started once per test process through the harness
/// when the `BRAID_TEST_*` variables do not name running ones: a redis-server, a TLS-only
/// redis-server, a Redis Cluster of 3 primaries and 3 replicas, and the broker. They die with
/// the test process (``ChildProcess``), and the next run reclaims its folder.
public enum TestServers {
    /// What ``TestEnvironment`` reads, by variable name, once the servers are up.
    static var started: [String: String]? { values.withLock { $0 } }

    /// The run folder of servers started here; nil when the environment names the servers.
    public static var runDirectory: RunDirectory? { directory.withLock { $0 } }

    private static let values = Mutex<[String: String]?>(nil)
    private static let directory = Mutex<RunDirectory?>(nil)
    private static let starting = Mutex<Task<[String: String], any Error>?>(nil)

    private static let variables = [
        "BRAID_TEST_REDIS_URL", "BRAID_TEST_REDIS_TLS_URL", "BRAID_TEST_TLS_DIR", "BRAID_TEST_REDIS_CLUSTER_NODES",
        "BRAID_TEST_KAFKA_BROKERS", "BRAID_TEST_KAFKA_PID", "BRAID_TEST_RUN_DIR",
    ]

    /// Starts the servers unless every `BRAID_TEST_*` variable names them already; concurrent
    /// callers wait for the same start.
    public static func ensure() async throws {
        let environment = ProcessInfo.processInfo.environment
        if variables.allSatisfy({ !(environment[$0] ?? "").isEmpty }) { return }
        let task = starting.withLock { task in
            if let task { return task }
            let started = Task { try await start() }
            task = started
            return started
        }
        let result = try await task.value
        values.withLock { $0 = result }
    }

    private static func start() async throws -> [String: String] {
        let run = try await RunDirectory.scratch("test")
        directory.withLock { $0 = run }
        let tls = try await TLSMaterial.make(in: run.file("tls"))
        async let redis = RedisServer.start(in: run)
        async let tlsRedis = RedisServer.start(in: run, tls: .init(material: tls))
        async let cluster = RedisCluster.start(in: run, name: "shared")
        async let broker = KafkaBroker.start(in: run, partitions: 6)
        let (plain, secure, shared, kafka) = try await (redis, tlsRedis, cluster, broker)
        return [
            "BRAID_TEST_REDIS_URL": plain.url,
            "BRAID_TEST_REDIS_TLS_URL": secure.url,
            "BRAID_TEST_TLS_DIR": tls.directory.path,
            "BRAID_TEST_REDIS_CLUSTER_NODES": shared.nodes.joined(separator: ","),
            "BRAID_TEST_KAFKA_BROKERS": kafka.brokers,
            "BRAID_TEST_KAFKA_PID": "\(kafka.process.pid)",
            "BRAID_TEST_RUN_DIR": run.url.path,
        ]
    }
}
