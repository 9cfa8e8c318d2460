import BraidCore
import BraidRedis
import BraidWorker
import Foundation
import Logging
import Metrics

/// What the gateway does about snapshots it does not have yet or that are getting old:
/// compute one inline, or ask the workers for one (on a miss, or ahead of expiry).
public struct SnapshotMisses: Sendable {
    let materializer: RankingMaterializer
    let publisher: RequestPublisher
    let flights = SingleFlight<String, Void>()
    let logger: Logger

    /// A published request is not repeated for this long: enough for a worker to
    /// materialize it, short enough that a lost request is asked for again soon.
    static let requestDedupSeconds = 60

    public init(materializer: RankingMaterializer, publisher: RequestPublisher, logger: Logger) {
        self.materializer = materializer
        self.publisher = publisher
        self.logger = logger
    }

    var store: PrecomputeStore { materializer.store }

    /// Computes and stores B for `query` with one call to the ranking source, however many
    /// requests miss at once: the others wait for that one computation.
    public func computeInline(ranking: String, query: String) async throws {
        Counter(label: "braid_gateway_snapshot_misses_total", dimensions: [("policy", "inline")]).increment()
        try await flights.run("\(ranking)\u{0}\(query)") { [materializer] in
            _ = try await materializer.materialize(
                .init(ranking: ranking, query: query), id: UUID().uuidString.lowercased(), ttlSeconds: nil, requestedAt: Date())
        }
    }

    /// Publishes a materialize request unless one was published for this key recently.
    /// Never throws: a page does not fail because its refresh could not be requested.
    public func request(ranking: String, query: String, reason: String) async {
        let marker = store.keys.ranking(ranking, query: query).refreshMarker
        do {
            let first = try await store.redis.set(
                marker, to: .string(reason), expiration: .seconds(Self.requestDedupSeconds), condition: .ifNotExists)
            guard first else { return }
            try await publisher.send(PrecomputeRequest(body: .ranking(.init(ranking: ranking, query: query))))
            Counter(label: "braid_gateway_snapshot_requests_total", dimensions: [("reason", reason)]).increment()
        } catch {
            logger.warning("could not request a snapshot", metadata: ["ranking": "\(ranking)", "reason": "\(reason)", "error": "\(error)"])
        }
    }
}
