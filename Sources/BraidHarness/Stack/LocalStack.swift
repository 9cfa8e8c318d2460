import Foundation

/// The servers every local run needs: a redis-server and the broker with Braid's topics,
/// plus the corpus of the embedded search source. Services come on top (``BraidService``).
public struct LocalStack: Sendable {
    public let run: RunDirectory
    public let redis: RedisServer
    public let broker: KafkaBroker
    /// The SQLite corpus (`search.sqlite.path`).
    public let corpus: URL

    /// The `BRAID_*` overrides that point a `braid` process at these servers and corpus.
    public var environment: [String: String] {
        ["BRAID_REDIS_URL": redis.url, "BRAID_KAFKA_BROKERS": broker.brokers, "BRAID_SEARCH_SQLITE_PATH": corpus.path]
    }

    /// Starts Redis and the broker (on the given ports, or free ones), and seeds `documents`
    /// recipes and `users` users into `corpus` unless that file exists (or `documents` is 0).
    public static func start(
        in run: RunDirectory, redisPort: Int? = nil, kafkaPort: Int? = nil, partitions: Int = 6,
        topics: [String] = KafkaBroker.defaultTopics, advertisedHost: String? = nil, corpus: URL? = nil,
        documents: Int = 2_000, users: Int = 50, binary: String = BraidService.binary, say: (String) -> Void = { _ in }
    ) async throws(HarnessError) -> LocalStack {
        let redis = try await RedisServer.start(in: run, port: redisPort)
        say("redis-server listening on 127.0.0.1:\(redis.port) (pid \(redis.process.pid))")
        let broker = try await KafkaBroker.start(
            in: run, port: kafkaPort, topics: topics, partitions: partitions, advertisedHost: advertisedHost)
        say("Kafka broker listening on \(broker.brokers) (pid \(broker.process.pid); topics \(topics.joined(separator: " ")), \(partitions) partitions each)")
        let corpus = corpus ?? run.file("corpus.sqlite")
        if documents > 0, !FileManager.default.fileExists(atPath: corpus.path) {
            try await ChildProcess.check(binary, ["seed", "--docs", "\(documents)", "--users", "\(users)", "--db", corpus.path], timeout: .seconds(600))
            say("seeded \(documents) recipes into \(corpus.path)")
        }
        return LocalStack(run: run, redis: redis, broker: broker, corpus: corpus)
    }

    /// Publishes request lines (``DemoRequests``) through `braid publish --file`.
    public func publish(_ lines: [String], name: String = "requests", environment extra: [String: String] = [:], binary: String = BraidService.binary)
        async throws(HarnessError)
    {
        let file = run.file("\(name).jsonl")
        try DemoRequests.write(lines, to: file)
        try await ChildProcess.check(binary, ["publish", "--file", file.path], environment: environment.merging(extra) { $1 })
    }
}
