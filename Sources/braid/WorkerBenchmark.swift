import ArgumentParser
import BraidConfig
import BraidCore
import BraidKafka
import BraidPrecompute
import BraidRedis
import BraidSources
import BraidWiring
import Foundation
import Logging

/// The requests both sides of the worker benchmark materialize: `count` ranking requests
/// over 400 two-word queries of common recipe words. Versions grow with the index, so a
/// repeated query is a refresh (a full-text query and a snapshot write), never skipped.
enum WorkerBenchRequests {
    static let words = [
        "curry", "rice", "chicken", "miso", "soup", "salad", "pasta", "tofu", "egg", "beef",
        "pork", "noodle", "cake", "bread", "tomato", "potato", "onion", "garlic", "ginger", "cheese",
    ]

    static func make(count: Int, at base: Date) -> [PrecomputeRequest] {
        let start = (base.timeIntervalSince1970 * 1000).rounded(.down)
        return (0..<count).map { i in
            let query = "\(words[i % words.count]) \(words[(i / words.count) % words.count])"
            return PrecomputeRequest(
                body: .ranking(.init(ranking: "featured", query: query, size: 30)),
                requestedAt: Date(timeIntervalSince1970: (start + Double(i)) / 1000))
        }
    }
}

/// `braid bench worker-direct`: the worker's work without Kafka — the same materializer,
/// the same concurrency, in a loop in this process.
struct WorkerDirectBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker-direct", abstract: "Materialize N ranking requests directly (source query + Redis write).")

    @OptionGroup var config: ConfigurationOption
    @Option(help: "Requests to materialize.") var requests = 5_000

    func run() async throws {
        let configuration = try config.loadForService()
        let redis = RedisClient(configuration: try configuration.redis.clientConfiguration())
        let source = SearchSourceFactory.make(configuration.search)
        let materializer = RankingMaterializer(
            store: PrecomputeStore(redis: redis, keys: configuration.redis.cacheKeys), source: source,
            rankings: configuration.materializedRankings)
        let work = WorkerBenchRequests.make(count: requests, at: Date())
        let concurrency = configuration.worker.concurrency
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await redis.run() }
            try await redis.waitUntilConnected()
            let started = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { workers in
                for lane in 0..<concurrency {
                    workers.addTask {
                        for request in stride(from: lane, to: work.count, by: concurrency).map({ work[$0] }) {
                            guard case .ranking(let target) = request.body else { continue }
                            _ = try await materializer.materialize(target, id: request.id, ttlSeconds: nil, requestedAt: request.requestedAt)
                        }
                    }
                }
                try await workers.waitForAll()
            }
            let seconds = (ContinuousClock.now - started).seconds
            print("FIGURE worker.direct.materializations_per_s \(Int((Double(requests) / seconds).rounded()))")
            group.cancelAll()
        }
        try await source.shutdown()
    }
}

/// `braid bench worker-publish`: publishes the same requests to the requests topic for
/// running `braid worker` processes to materialize.
struct WorkerPublishBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker-publish", abstract: "Publish N ranking requests for the worker benchmark.")

    @OptionGroup var config: ConfigurationOption
    @Option(help: "Requests to publish.") var requests = 5_000

    func run() async throws {
        let configuration = try config.loadForService()
        let producer = try KafkaProducer(configuration: configuration.kafka.producer(clientID: "braid-bench"))
        let publisher = RequestPublisher(producer: producer, topic: configuration.kafka.requestsTopic)
        for request in WorkerBenchRequests.make(count: requests, at: Date()) {
            try await publisher.send(request)
        }
        await producer.shutdown()
        guard producer.deliveryCounts.delivered == requests else {
            throw ValidationError("only \(producer.deliveryCounts.delivered) of \(requests) requests were acknowledged")
        }
    }
}

extension Duration {
    /// The duration in seconds, as a floating-point number.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
