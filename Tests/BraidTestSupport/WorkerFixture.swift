import BraidHarness
import BraidKafka
import BraidRedis
import Foundation

/// An isolated world for `braid worker` processes: own topics, consumer group, Redis key
/// prefix and corpus, on the servers of the integration tier (``TestEnvironment``).
public struct WorkerFixture: Sendable {
    public let requestsTopic = TestEnvironment.uniqueName("requests")
    public let deadLetterTopic = TestEnvironment.uniqueName("dlq")
    public let eventsTopic = TestEnvironment.uniqueName("events")
    public let group = TestEnvironment.uniqueName("workers")
    public let keyPrefix = TestEnvironment.uniqueName("braid")
    public let corpus: URL
    public let brokers: String
    /// The redis-server's URL; with ``FixtureRedis/cluster``, one node of the cluster.
    public let redisURL: String
    /// Every node of the test cluster with ``FixtureRedis/cluster`` (what `redis.cluster_nodes`
    /// is set to); empty for the single server.
    public let redisClusterNodes: [String]
    /// The CA file of the TLS test server with ``FixtureRedis/tls`` (`redis.tls.ca_file`); empty otherwise.
    public let redisCAFile: String
    public let partitions: Int32

    /// Creates the topics (the requests topic with `partitions`) and seeds a corpus of
    /// `documents` recipes and `users` users. `redis` picks the shared redis-server or the
    /// shared Redis Cluster for every process of the fixture; `clusterURLs` replaces the shared
    /// cluster with a private one (a test that kills nodes).
    public init(
        partitions: Int32 = 6, documents: Int = 2_000, users: Int = 300, redis: FixtureRedis = .standalone, clusterURLs: [String]? = nil
    ) async throws {
        self.partitions = partitions
        brokers = try TestEnvironment.kafkaBrokers()
        switch redis {
        case .standalone:
            (redisURL, redisClusterNodes, redisCAFile) = (try TestEnvironment.redisURL(), [], "")
        case .tls:
            (redisURL, redisClusterNodes, redisCAFile) = (try TestEnvironment.redisTLSURL(), [], try TestEnvironment.tlsFile("ca.crt"))
        case .cluster:
            redisClusterNodes = try clusterURLs ?? TestEnvironment.redisClusterURLs()
            (redisURL, redisCAFile) = (redisClusterNodes[0], "")
        }
        corpus = try TestEnvironment.runDirectory().appendingPathComponent("\(keyPrefix)-corpus.sqlite")
        let admin = try KafkaAdmin(brokers: brokers)
        _ = try await admin.createTopic(requestsTopic, partitions: partitions)
        _ = try await admin.createTopic(deadLetterTopic, partitions: 6)
        _ = try await admin.createTopic(eventsTopic, partitions: 6)
        let seeded = try BraidBinary.run(["seed", "--docs", "\(documents)", "--users", "\(users)", "--db", corpus.path])
        guard seeded.status == 0 else { throw ChildProcessError(description: "braid seed failed: \(seeded.stderr)") }
    }

    /// The configuration of every process of this fixture, as environment overrides.
    public var environment: [String: String] {
        [
            "BRAID_REDIS_URL": redisURL, "BRAID_REDIS_KEY_PREFIX": keyPrefix,
            "BRAID_KAFKA_BROKERS": brokers, "BRAID_KAFKA_REQUESTS_TOPIC": requestsTopic,
            "BRAID_KAFKA_DEAD_LETTER_TOPIC": deadLetterTopic, "BRAID_KAFKA_CONSUMER_GROUP": group,
            "BRAID_KAFKA_EVENTS_TOPIC": eventsTopic, "BRAID_KAFKA_EVENTS_CONSUMER_GROUP": group + "-events",
            "BRAID_SEARCH_SQLITE_PATH": corpus.path, "BRAID_WORKER_METRICS_PORT": "0",
            "BRAID_WORKER_RETRY_BACKOFF_MS": "50", "BRAID_LOGGING_LEVEL": "info",
            // A list in one variable, as an operator would set it; empty: standalone.
            "BRAID_REDIS_CLUSTER_NODES": redisClusterNodes.joined(separator: ","),
            "BRAID_REDIS_TLS_CA_FILE": redisCAFile,
        ]
    }

    /// Runs a client of the fixture's Redis (the server, or the cluster) for `body`.
    public func withRedis<T: Sendable>(_ body: @Sendable (RedisClient) async throws -> T) async throws -> T {
        if !redisClusterNodes.isEmpty { return try await withRedisClusterClient(redisClusterNodes, body) }
        var configuration = try RedisConfiguration(url: redisURL, poolSize: 2, commandTimeout: .seconds(2))
        if !redisCAFile.isEmpty { configuration.tls?.caFile = redisCAFile }
        return try await withRedisClient(configuration: configuration, body)
    }

    /// Where the log of the worker called `name` goes.
    public func logFile(of name: String) throws -> URL {
        try TestEnvironment.runDirectory().appendingPathComponent("\(keyPrefix)-\(name).log")
    }

    /// Starts `braid worker` (with `arguments`, and `environment` over the fixture's); its log
    /// goes to the test run folder.
    public func startWorker(_ name: String, arguments: [String] = [], environment extra: [String: String] = [:]) async throws
        -> ChildProcess
    {
        try await TestRun.start(
            BraidBinary.url.path, ["worker"] + arguments, environment: environment.merging(extra) { $1 }, log: try logFile(of: name))
    }

    /// Waits until the worker called `name` has been assigned partitions of the requests topic.
    public func waitUntilAssigned(_ name: String, within timeout: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try log(of: name).split(separator: "\n").contains(where: { $0.contains("partitions assigned") && $0.contains(requestsTopic + "[") }) {
                return
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw ChildProcessError(description: "worker \(name) was not assigned a partition of \(requestsTopic) within \(timeout)")
    }

    public func log(of name: String) throws -> String {
        (try? String(contentsOf: logFile(of: name), encoding: .utf8)) ?? ""
    }
}

/// Which Redis the processes of a ``WorkerFixture`` use.
public enum FixtureRedis: String, Sendable, CaseIterable, CustomStringConvertible {
    /// The shared redis-server.
    case standalone
    /// The shared TLS-only redis-server, through a `rediss://` URL and `redis.tls.ca_file`.
    case tls
    /// The shared Redis Cluster (3 primaries, 3 replicas), through `redis.cluster_nodes`.
    case cluster

    public var description: String { rawValue }
}
