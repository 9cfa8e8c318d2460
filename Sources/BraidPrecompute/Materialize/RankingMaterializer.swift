import BraidContracts
import BraidCore
import BraidSources
import Foundation

/// Materializes ranking requests: one query to the live source with the ranking's profile,
/// written to Redis as a new snapshot version behind an atomic pointer flip.
public struct RankingMaterializer: Sendable {
    /// What one secondary ranking is: how to compute it and how long to keep it.
    public struct Ranking: Sendable, Hashable {
        public var profile: RankingProfile
        public var size: Int
        public var ttlSeconds: Int
        public var graceSeconds: Int

        public init(profile: RankingProfile, size: Int, ttlSeconds: Int, graceSeconds: Int) {
            self.profile = profile
            self.size = size
            self.ttlSeconds = ttlSeconds
            self.graceSeconds = graceSeconds
        }
    }

    public let store: PrecomputeStore
    public let source: any SearchSource
    public let rankings: [String: Ranking]

    public init(store: PrecomputeStore, source: any SearchSource, rankings: [String: Ranking]) {
        self.store = store
        self.source = source
        self.rankings = rankings
    }

    /// Computes and stores the snapshot a request asks for. A request no newer than the
    /// stored snapshot is acknowledged without querying the source (at-least-once delivery
    /// replays requests; replays must be cheap and must never go back in time).
    public func materialize(
        _ target: PrecomputeRequest.RankingTarget, id: String, ttlSeconds: Int?, requestedAt: Date
    ) async throws -> MaterializeOutcome {
        guard let ranking = rankings[target.ranking] else {
            throw MaterializeError.permanent("unknown ranking '\(target.ranking)'; configured: \(rankings.keys.sorted().joined(separator: ", "))")
        }
        let query = QueryNormalizer.normalize(target.query)
        let version = RankingSnapshot.version(for: requestedAt)
        if let current = try await store.currentVersion(ranking: target.ranking, query: query), current >= version {
            return .stale
        }
        // A snapshot keeps documents, not a total: counting would only cost the source time
        // (on a gateway computing it inline, the time of the page that waits for it).
        let result = try await source.search(
            SearchRequest(query: query, from: 0, size: target.size ?? ranking.size, profile: ranking.profile, needsTotal: false))
        let snapshot = RankingSnapshot(
            ranking: target.ranking, query: query, version: version, createdAt: Date(), requestID: id,
            documents: result.documents, matchGeneration: result.matchGeneration)
        let outcome = try await store.publish(
            snapshot, ttlSeconds: ttlSeconds ?? ranking.ttlSeconds, graceSeconds: ranking.graceSeconds)
        return outcome == .written ? .written(documents: snapshot.documents.count) : .stale
    }
}

/// What processing one request did.
public enum MaterializeOutcome: Sendable, Hashable {
    case written(documents: Int)
    /// Something as new or newer was already stored; nothing was written.
    case stale
}

/// Why a request could not be materialized, and whether trying again could help.
public enum MaterializeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Retrying cannot help (unknown ranking, a query the source refuses): dead-letter it.
    case permanent(String)

    public var description: String {
        switch self {
        case .permanent(let reason): reason
        }
    }
}
