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
    /// Per process; across gateways ``lease`` (inline) and the Redis marker of ``requests``
    /// (async) deduplicate.
    let flights = SingleFlight<String, Void>()
    /// The fleet's lease on an inline computation; nil: each gateway process computes once.
    let lease: SnapshotLease?
    let logger: Logger
    /// Which missed queries are computed and stored; the rest are served live-only.
    public let admission: PrecomputeAdmission

    public init(
        materializer: RankingMaterializer, requests: DeduplicatingPublisher, admission: PrecomputeAdmission = .everything,
        lease: SnapshotLease? = nil, logger: Logger
    ) {
        self.admission = admission
        self.lease = lease
        self.materializer = materializer
        self.requests = requests
        self.logger = logger
    }

    /// Computes and stores B for `query` with one call to the ranking source, however many
    /// requests miss at once: in this process they wait for one computation, and with a
    /// ``SnapshotLease`` the fleet's gateways wait for the one that holds the lease (up to its
    /// wait; then the page reads no snapshot and is live-only).
    /// Traced as a `snapshot.miss.inline` span of the page (with the source query and the
    /// `redis.write` under it when this request is the one computing).
    public func computeInline(ranking: String, query: String) async throws {
        Counter(.gatewaySnapshotMisses, dimensions: [("policy", "inline")]).increment()
        try await withSpan("snapshot.miss.inline") { span in
            span.attributes["braid.ranking"] = ranking
            try await flights.run("\(ranking)\u{0}\(query)") { [materializer, lease] in
                let compute: @Sendable () async throws -> Void = {
                    _ = try await materializer.materialize(
                        .init(ranking: ranking, query: query), id: UUID().uuidString.lowercased(), ttlSeconds: nil, requestedAt: Date())
                }
                guard let lease else { return try await compute() }
                _ = try await lease.run(ranking: ranking, query: query, compute)
            }
        }
    }

    /// Whether a miss of `query` for `ranking` earns a stored snapshot now (``PrecomputeAdmission``).
    public func admit(ranking: String, query: String) async -> Bool {
        await admission.admit("\(ranking)\u{0}\(query)", kind: "query")
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
