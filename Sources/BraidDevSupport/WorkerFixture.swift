import BraidHarness
import BraidKafka
import BraidRedis
import Foundation

/// An isolated world for `braid worker` and `braid gateway` processes: own topics, consumer
/// group, Redis key prefix and corpus. Tests build it on the servers of the integration tier
/// (``TestEnvironment``); fault scenarios on servers they started, through
/// ``init(name:redisURL:redisClusterNodes:brokers:corpus:run:binary:partitions:)``.
public struct WorkerFixture: Sendable {
    public let requestsTopic: String
    public let deadLetterTopic: String
    public let eventsTopic: String
    public let group: String
    public let eventsGroup: String
    public let keyPrefix: String
    public let corpus: URL
    public let brokers: String
    /// The redis-server's URL; with ``FixtureRedis/cluster``, one node of the cluster.
    public let redisURL: String
    /// Every node of the test cluster with ``FixtureRedis/cluster`` (what `redis.cluster_nodes`
    /// is set to); empty for the single server.
    public let redisClusterNodes: [String]
    /// The CA file of the TLS test server with ``FixtureRedis/tls`` (`redis.tls.ca_file`); nil otherwise.
    public let redisCAFile: String?
    public let partitions: Int32
    /// The run folder the fixture's processes are recorded in (they die with it).
    public let run: RunDirectory
    /// Where the fixture's logs go.
    public let logFolder: URL
    /// The `braid` executable its processes run.
    public let binary: String
    /// More `BRAID_*` overrides for every process, over the fixture's own.
    public var overrides: [String: String] = [:]

    /// Creates the topics (the requests topic with `partitions`) and seeds a corpus of
    /// `documents` recipes and `users` users. `redis` picks the shared redis-server or the
    /// shared Redis Cluster for every process of the fixture; `clusterURLs` replaces the shared
    /// cluster with a private one (a test that kills nodes).
    public init(
        partitions: Int32 = 6, documents: Int = 2_000, users: Int = 300, redis: FixtureRedis = .standalone, clusterURLs: [String]? = nil
    ) async throws {
        let servers: (url: String, nodes: [String], caFile: String?)
        switch redis {
        case .standalone:
            servers = (try TestEnvironment.redisURL(), [], nil)
        case .tls:
            servers = (try TestEnvironment.redisTLSURL(), [], try TestEnvironment.tlsFile("ca.crt"))
        case .cluster:
            let nodes = try clusterURLs ?? TestEnvironment.redisClusterURLs()
            servers = (nodes[0], nodes, nil)
        }
        let keyPrefix = TestEnvironment.uniqueName("braid")
        let folder = try TestEnvironment.runDirectory()
        let corpus = folder.appendingPathComponent("\(keyPrefix)-corpus.sqlite")
        try await self.init(
            names: .unique, keyPrefix: keyPrefix, redisURL: servers.url, redisClusterNodes: servers.nodes, redisCAFile: servers.caFile,
            brokers: try TestEnvironment.kafkaBrokers(), corpus: corpus, run: try await TestRun.directory(), logFolder: folder,
            binary: BraidBinary.url.path, partitions: partitions)
        let seeded = try BraidBinary.run(["seed", "--docs", "\(documents)", "--users", "\(users)", "--db", corpus.path])
        guard seeded.status == 0 else { throw ChildProcessError(description: "braid seed failed: \(seeded.stderr)") }
    }

    /// A fixture on servers the caller started: topics `<name>.requests`, `<name>.dlq` and
    /// `<name>.events` (created here, `partitions` each), consumer groups `<name>-workers` and
    /// `<name>-events`, Redis key prefix `<name>`, and `corpus` (already seeded). Its processes
    /// run `binary`, are recorded in `run` and log there.
    public init(
        name: String, redisURL: String, redisClusterNodes: [String] = [], brokers: String, corpus: URL, run: RunDirectory,
        binary: String = BraidService.binary, partitions: Int32 = 6
    ) async throws {
        try await self.init(
            names: .scoped(name), keyPrefix: name, redisURL: redisURL, redisClusterNodes: redisClusterNodes, redisCAFile: nil,
            brokers: brokers, corpus: corpus, run: run, logFolder: run.url, binary: binary, partitions: partitions)
    }

    /// The names of a fixture's topics and consumer groups.
    private struct Names {
        var requests, deadLetters, events, group, eventsGroup: String

        /// Names no other test (or earlier run against the same servers) uses.
        static var unique: Names {
            let group = TestEnvironment.uniqueName("workers")
            return Names(
                requests: TestEnvironment.uniqueName("requests"), deadLetters: TestEnvironment.uniqueName("dlq"),
                events: TestEnvironment.uniqueName("events"), group: group, eventsGroup: group + "-events")
        }

        static func scoped(_ name: String) -> Names {
            Names(requests: "\(name).requests", deadLetters: "\(name).dlq", events: "\(name).events", group: "\(name)-workers", eventsGroup: "\(name)-events")
        }
    }

    private init(
        names: Names, keyPrefix: String, redisURL: String, redisClusterNodes: [String], redisCAFile: String?, brokers: String, corpus: URL,
        run: RunDirectory, logFolder: URL, binary: String, partitions: Int32
    ) async throws {
        requestsTopic = names.requests
        deadLetterTopic = names.deadLetters
        eventsTopic = names.events
        group = names.group
        eventsGroup = names.eventsGroup
        self.keyPrefix = keyPrefix
        self.redisURL = redisURL
        self.redisClusterNodes = redisClusterNodes
        self.redisCAFile = redisCAFile
        self.brokers = brokers
        self.corpus = corpus
        self.run = run
        self.logFolder = logFolder
        self.binary = binary
        self.partitions = partitions
        let admin = try KafkaAdmin(brokers: brokers)
        _ = try await admin.createTopic(requestsTopic, partitions: partitions)
        _ = try await admin.createTopic(deadLetterTopic, partitions: 6)
        _ = try await admin.createTopic(eventsTopic, partitions: 6)
    }

    /// The configuration of every process of this fixture, as environment overrides.
    public var environment: [String: String] {
        [
            "BRAID_REDIS_URL": redisURL, "BRAID_REDIS_KEY_PREFIX": keyPrefix,
            "BRAID_KAFKA_BROKERS": brokers, "BRAID_KAFKA_REQUESTS_TOPIC": requestsTopic,
            "BRAID_KAFKA_DEAD_LETTER_TOPIC": deadLetterTopic, "BRAID_KAFKA_CONSUMER_GROUP": group,
            "BRAID_KAFKA_EVENTS_TOPIC": eventsTopic, "BRAID_KAFKA_EVENTS_CONSUMER_GROUP": eventsGroup,
            "BRAID_SEARCH_SQLITE_PATH": corpus.path, "BRAID_WORKER_METRICS_PORT": "0",
            "BRAID_WORKER_RETRY_BACKOFF_MS": "50", "BRAID_LOGGING_LEVEL": "info",
            // A list in one variable, as an operator would set it; empty: standalone.
            "BRAID_REDIS_CLUSTER_NODES": redisClusterNodes.joined(separator: ","),
            "BRAID_REDIS_TLS_CA_FILE": redisCAFile ?? "",
        ].merging(Self.gatewayLimits) { $1 }.merging(overrides) { $1 }
    }

    /// Runs a client of the fixture's Redis (the server, or the cluster) for `body`.
    public func withRedis<T: Sendable>(_ body: @Sendable (RedisClient) async throws -> T) async throws -> T {
        if !redisClusterNodes.isEmpty { return try await withRedisClusterClient(redisClusterNodes, body) }
        var configuration = try RedisConfiguration(url: redisURL, poolSize: 2, commandTimeout: .seconds(2))
        if let redisCAFile { configuration.tls?.caFile = redisCAFile }
        return try await withRedisClient(configuration: configuration, body)
    }

    /// Where the log of the process called `name` goes.
    public func logFile(of name: String) throws -> URL {
        logFolder.appendingPathComponent("\(keyPrefix)-\(name).log")
    }

    /// Starts `braid worker` (with `arguments`, and `environment` over the fixture's); its log
    /// goes to the fixture's log folder.
    public func startWorker(_ name: String, arguments: [String] = [], environment extra: [String: String] = [:]) async throws
        -> ChildProcess
    {
        try await run.start(binary, ["worker"] + arguments, environment: environment.merging(extra) { $1 }, logFile: try logFile(of: name))
    }

    /// Starts `braid gateway` on a free port (with `arguments`, and `environment` over the fixture's) and waits
    /// until it answers /healthz; its log is `<key prefix>-<name>.log` in the run folder.
    /// `launcher` is an executable run in place of `braid` that execs it with its arguments.
    public func startGateway(
        _ name: String = "gateway", arguments: [String] = [], environment extra: [String: String] = [:], launcher: String? = nil
    ) async throws -> BraidService {
        try await BraidService.gateway(
            in: run, name: "\(keyPrefix)-\(name)", arguments: arguments, environment: environment.merging(extra) { $1 }, binary: launcher ?? binary)
    }

    /// The fixture's gateways (in ``environment``) store every first miss and limit no caller:
    /// its tests warm a query with one page and then read its snapshot, and their walkers are one
    /// loopback address at hundreds of pages a second. Admission and the limits have tests of
    /// their own (`AdmissionRouteTests`, `RateLimitRouteTests`, `make attack`).
    public static let gatewayLimits = ["BRAID_GATEWAY_ADMISSION_THRESHOLD": "1", "BRAID_GATEWAY_RATE_LIMITS_ENABLED": "false"]

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
