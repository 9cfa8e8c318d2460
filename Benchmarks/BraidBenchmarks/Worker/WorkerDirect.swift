import BraidConfig
import BraidContracts
import BraidCore
import BraidPrecompute
import BraidRedis
import BraidSources
import BraidWiring
import Foundation

/// The worker's work without Kafka: the same materializer, source and Redis client as
/// `braid worker` (BraidWiring), the same concurrency, in a loop in this process.
enum WorkerDirect {
    /// Materializations per second of `requests` ranking requests.
    static func materializationsPerSecond(_ configuration: BraidConfiguration, requests: Int) async throws -> Int {
        // What `braid worker` does first (logging and metrics, once per process): metrics are
        // part of the work measured.
        configuration.bootstrapObservability()
        let redis = try configuration.redis.makeClient()
        let source = SearchSourceFactory.make(configuration.search)
        let materializer = RankingMaterializer(
            store: PrecomputeStore(redis: redis, keys: configuration.redis.cacheKeys), source: source,
            rankings: configuration.materializedRankings)
        let work = WorkerRequests.make(count: requests, at: Date())
        let concurrency = configuration.worker.concurrency
        let rate = try await withThrowingTaskGroup(of: Void.self) { group in
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
            let seconds = Format.seconds(ContinuousClock.now - started)
            group.cancelAll()
            return Int((Double(requests) / seconds).rounded())
        }
        try await source.shutdown()
        return rate
    }
}
