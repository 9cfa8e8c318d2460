import BraidContracts
import BraidCore
import BraidObservability
import BraidPrecompute
import Foundation
import Logging
import Metrics
import Tracing

/// What the gateway does about snapshots it does not have yet or that are getting old:
/// compute one inline, or ask the workers for one (on a miss, or ahead of expiry).
public struct SnapshotMisses: Sendable {
    let materializer: RankingMaterializer
    let requests: DeduplicatingPublisher
    /// Per process: across gateways only the Redis marker of ``requests`` deduplicates.
    let flights = SingleFlight<String, Void>()
    let logger: Logger
    /// Which missed queries are computed and stored; the rest are served live-only.
    public let admission: PrecomputeAdmission

    public init(
        materializer: RankingMaterializer, requests: DeduplicatingPublisher, admission: PrecomputeAdmission = .everything, logger: Logger
    ) {
        self.admission = admission
        self.materializer = materializer
        self.requests = requests
        self.logger = logger
    }

    /// Computes and stores B for `query` with one call to the ranking source, however many
    /// requests of this gateway process miss at once: they wait for that one computation.
    /// (Each gateway process computes once; the snapshot write is idempotent, so concurrent
    /// gateways cost one source query each, never a stampede per request.)
    /// Traced as a `snapshot.miss.inline` span of the page (with the source query and the
    /// `redis.write` under it when this request is the one computing).
    public func computeInline(ranking: String, query: String) async throws {
        Counter(.gatewaySnapshotMisses, dimensions: [("policy", "inline")]).increment()
        try await withSpan("snapshot.miss.inline") { span in
            span.attributes["braid.ranking"] = ranking
            try await flights.run("\(ranking)\u{0}\(query)") { [materializer] in
                _ = try await materializer.materialize(
                    .init(ranking: ranking, query: query), id: UUID().uuidString.lowercased(), ttlSeconds: nil, requestedAt: Date())
            }
        }
    }

    /// Whether a miss of `query` for `ranking` earns a stored snapshot now (``PrecomputeAdmission``).
    public func admit(ranking: String, query: String) -> Bool {
        admission.admit("\(ranking)\u{0}\(query)", kind: "query")
    }

    /// Publishes a materialize request unless one was published for this key recently.
    /// Never throws: a page does not fail because its refresh could not be requested.
    public func request(ranking: String, query: String, reason: String) async {
        do {
            guard try await requests.publish(PrecomputeRequest(body: .ranking(.init(ranking: ranking, query: query))), reason: reason) else {
                return
            }
            Counter(.gatewaySnapshotRequests, dimensions: [("reason", reason)]).increment()
        } catch {
            logger.warning("could not request a snapshot", metadata: ["ranking": "\(ranking)", "reason": "\(reason)", "error": "\(error)"])
        }
    }
}
