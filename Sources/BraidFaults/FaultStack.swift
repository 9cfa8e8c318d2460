import BraidHarness
import BraidDevSupport
import Foundation

/// The servers every scenario shares: a redis-server, the broker and a seeded corpus, and the
/// `braid` binary its processes run. Scenarios that need a Redis of their own (restarted, or
/// a cluster) start it themselves.
public struct FaultStack: Sendable {
    /// The run folder; each scenario gets a folder of its own inside it.
    public let run: RunDirectory
    public let redisURL: String
    /// Nodes of a Redis Cluster for the scenarios' fixtures instead of ``redisURL``; empty: standalone.
    public let redisClusterNodes: [String]
    public let brokers: String
    /// The broker's process, which `broker-freeze` stops and continues.
    public let brokerPID: pid_t
    public let corpus: URL
    public let binary: String
    /// Whether scenario names (folders, topics, key prefixes) get a unique suffix: tests share
    /// their servers with other tests and with earlier runs.
    public let uniqueNames: Bool

    public init(
        run: RunDirectory, redisURL: String, redisClusterNodes: [String] = [], brokers: String, brokerPID: pid_t, corpus: URL,
        binary: String = BraidService.binary, uniqueNames: Bool = false
    ) {
        self.run = run
        self.redisURL = redisURL
        self.redisClusterNodes = redisClusterNodes
        self.brokers = brokers
        self.brokerPID = brokerPID
        self.corpus = corpus
        self.binary = binary
        self.uniqueNames = uniqueNames
    }

    /// `make faults`' stack: Redis and the broker (6 partitions per topic) started in `run`,
    /// and a corpus of `documents` recipes and `users` users.
    public static func start(
        in run: RunDirectory, documents: Int = 5_000, users: Int = 100, binary: String = BraidService.binary, say: (String) -> Void = { _ in }
    ) async throws -> FaultStack {
        let local = try await LocalStack.start(in: run, partitions: 6, documents: documents, users: users, binary: binary, say: say)
        return FaultStack(
            run: run, redisURL: local.redis.url, brokers: local.broker.brokers, brokerPID: local.broker.process.pid, corpus: local.corpus,
            binary: binary)
    }

    /// The integration tier's servers (inside the `.integration` trait), with a corpus of its
    /// own: scenarios at test scale. `redis: .cluster` puts the fixtures on the shared cluster.
    public static func integrationTier(redis: FixtureRedis = .standalone, documents: Int = 2_000, users: Int = 300) async throws -> FaultStack {
        let folder = try TestEnvironment.runDirectory()
        let corpus = folder.appendingPathComponent("\(TestEnvironment.uniqueName("faults"))-corpus.sqlite")
        let seeded = try BraidBinary.run(["seed", "--docs", "\(documents)", "--users", "\(users)", "--db", corpus.path])
        guard seeded.status == 0 else { throw ChildProcessError(description: "braid seed failed: \(seeded.stderr)") }
        var nodes: [String] = []
        switch redis {
        case .standalone: break
        case .tls: throw ChildProcessError(description: "fault scenarios run on a plain redis-server or a cluster")
        case .cluster: nodes = try TestEnvironment.redisClusterURLs()
        }
        let url = try nodes.first ?? TestEnvironment.redisURL()
        return FaultStack(
            run: try await TestRun.directory(), redisURL: url, redisClusterNodes: nodes, brokers: try TestEnvironment.kafkaBrokers(),
            brokerPID: try TestEnvironment.kafkaPID(), corpus: corpus, binary: BraidBinary.url.path, uniqueNames: true)
    }

    /// The name of a scenario's folder, topics, group and key prefix.
    func name(for scenario: String) -> String {
        uniqueNames ? TestEnvironment.uniqueName(scenario) : scenario
    }
}
