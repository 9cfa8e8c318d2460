import BraidContracts
import BraidCore
import BraidPrecompute
import Foundation

/// Processes one message of `braid.requests`: decodes it against the request schema and
/// materializes what it asks for. Knows nothing of Kafka, so it is tested on its own.
public struct RequestProcessor: MessageProcessor {
    public let rankings: RankingMaterializer
    public let components: ComponentMaterializer
    /// The worker's clock, which a request's time is checked against.
    let now: @Sendable () -> Date

    public init(rankings: RankingMaterializer, components: ComponentMaterializer, now: @escaping @Sendable () -> Date = Date.init) {
        self.rankings = rankings
        self.components = components
        self.now = now
    }

    public var spanName: String { "materialize" }

    /// Decodes and materializes one message value; its kind is `ranking` or `component`. A
    /// request dated in the future beyond the clock skew tolerance is permanent (dead-lettered):
    /// materialized, it would freeze its cache entry until that date.
    /// - Throws: ``ProcessingFailure``, classified for retrying or dead-lettering.
    public func process(_ value: [UInt8]) async throws(ProcessingFailure) -> (kind: String, outcome: MaterializeOutcome) {
        let request: PrecomputeRequest
        do {
            request = try PrecomputeRequest.decode(Data(value))
            try request.checkNotAhead(of: now())
        } catch {
            throw .permanent("invalid request: \(error.reason)")
        }
        do {
            switch request.body {
            case .ranking(let target):
                return ("ranking", try await rankings.materialize(target, id: request.id, ttlSeconds: request.ttlSeconds, requestedAt: request.requestedAt))
            case .component(let target):
                return ("component", try await components.materialize(target, id: request.id, ttlSeconds: request.ttlSeconds, requestedAt: request.requestedAt))
            }
        } catch {
            throw ProcessingFailure.classify(error)
        }
    }

    /// The search source (an empty query) and Redis (a PING to every primary); other failures are not probed.
    public func probe(_ dependency: ProcessingFailure.Dependency) async -> Bool? {
        switch dependency {
        case .searchSource: await DependencyProbes.searchSource(rankings.source)
        case .redis: await DependencyProbes.redis(rankings.store.redis)
        case .other: nil
        }
    }
}
