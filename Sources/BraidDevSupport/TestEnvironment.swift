import BraidHarness
import Foundation

/// Where the servers of the integration tests listen: the ones the `BRAID_TEST_*` variables
/// name, or else the ones this test process started through the harness (``TestServers``).
///
/// Integration tests read these inside the ``IntegrationTrait`` scope, which starts the servers
/// first; outside it (a test that forgot the trait) they fail with an error that says so.
public enum TestEnvironment {
    public struct MissingServer: Error, CustomStringConvertible {
        public let variable: String
        public var description: String {
            "\(variable) is not set and no test servers were started: a test that needs real servers must run in a suite with "
                + "the `.integration` trait (BraidTestSupport), which starts them"
        }
    }

    static func required(_ variable: String) throws -> String {
        if let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty { return value }
        if let value = TestServers.started?[variable] { return value }
        throw MissingServer(variable: variable)
    }

    /// `redis://127.0.0.1:<port>` of the shared test redis-server.
    public static func redisURL() throws -> String { try required("BRAID_TEST_REDIS_URL") }

    /// Host and port of the shared test redis-server.
    public static func redisEndpoint() throws -> (host: String, port: Int) {
        let url = try redisURL()
        guard let components = URLComponents(string: url), let host = components.host, let port = components.port else {
            throw MissingServer(variable: "BRAID_TEST_REDIS_URL (unparseable: \(url))")
        }
        return (host, port)
    }

    /// `rediss://127.0.0.1:<port>` of the shared TLS-only test redis-server (its certificate is
    /// issued by `ca.crt` of ``tlsDirectory()`` for localhost and 127.0.0.1; client
    /// certificates are optional there, and verified when presented).
    public static func redisTLSURL() throws -> String { try required("BRAID_TEST_REDIS_TLS_URL") }

    /// The folder of the test certificates (``TLSMaterial``): ca, server, server-dns, client,
    /// other-ca, other-client, selfsigned (`.crt` and `.key`).
    public static func tlsDirectory() throws -> URL {
        URL(fileURLWithPath: try required("BRAID_TEST_TLS_DIR"), isDirectory: true)
    }

    /// The path of one file of ``tlsDirectory()``, e.g. `tlsFile("ca.crt")`.
    public static func tlsFile(_ name: String) throws -> String {
        try tlsDirectory().appendingPathComponent(name).path
    }

    /// `127.0.0.1:<port>` of every node of the shared test Redis Cluster (3 primaries and 3
    /// replicas; the primaries were listed first when it started, but tests may fail over).
    public static func redisClusterNodes() throws -> [String] {
        try required("BRAID_TEST_REDIS_CLUSTER_NODES").split(separator: ",").map(String.init)
    }

    /// `redis://` URLs of the shared test cluster's nodes, for ``RedisConfiguration(clusterURLs:)``.
    public static func redisClusterURLs() throws -> [String] {
        try redisClusterNodes().map { "redis://\($0)" }
    }

    /// `host:port` of the shared test Kafka broker.
    public static func kafkaBrokers() throws -> String { try required("BRAID_TEST_KAFKA_BROKERS") }

    /// Pid of the shared broker, for fault tests that freeze it (SIGSTOP/SIGCONT).
    public static func kafkaPID() throws -> pid_t {
        let raw = try required("BRAID_TEST_KAFKA_PID")
        guard let pid = pid_t(raw) else { throw MissingServer(variable: "BRAID_TEST_KAFKA_PID (not a pid: \(raw))") }
        return pid
    }

    /// Folder for logs, corpora and configuration files of a test.
    public static func runDirectory() throws -> URL {
        URL(fileURLWithPath: try required("BRAID_TEST_RUN_DIR"), isDirectory: true)
    }

    /// A name no other test (or earlier run against the same servers) uses.
    public static func uniqueName(_ prefix: String) -> String {
        "\(prefix)-\(UUID().uuidString.prefix(8).lowercased())"
    }
}
