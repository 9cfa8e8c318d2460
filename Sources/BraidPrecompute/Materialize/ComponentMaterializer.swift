import BraidContracts
import BraidCore
import BraidSources
import Foundation

/// Materializes component requests: the first items of one feed component for one scope,
/// checked against their type's shape (`Schemas/component.schema.json`) and stored as bytes
/// with item offsets, so the gateway serves pages without decoding them. An
/// `interleaved_recipes` component's stored part is its cached ranking: the request
/// materializes that snapshot.
public struct ComponentMaterializer: Sendable {
    /// What the worker knows of one feed's components.
    public struct Feed: Sendable, Hashable {
        public var ttlSecondsByType: [ComponentType: Int]
        /// The feed's `interleaved_recipes` list, if it has one.
        public var interleaved: InterleavedList?

        public init(ttlSecondsByType: [ComponentType: Int], interleaved: InterleavedList? = nil) {
            self.ttlSecondsByType = ttlSecondsByType
            self.interleaved = interleaved
        }
    }

    /// The cached ranking (B) and live query (A) of an interleaved list.
    public struct InterleavedList: Sendable, Hashable {
        public var ranking: String
        public var query: String

        public init(ranking: String, query: String) {
            self.ranking = ranking
            self.query = query
        }
    }

    public let store: PrecomputeStore
    public let provider: any ComponentProvider
    public let feeds: [String: Feed]
    /// Items stored per component: enough for several client pages of a horizontal row.
    public let storedItems: Int
    /// Snapshots of interleaved lists; nil: such requests are refused.
    public let rankings: RankingMaterializer?

    public init(
        store: PrecomputeStore, provider: any ComponentProvider, feeds: [String: Feed], storedItems: Int = 60,
        rankings: RankingMaterializer? = nil
    ) {
        self.store = store
        self.provider = provider
        self.feeds = feeds
        self.storedItems = max(1, storedItems)
        self.rankings = rankings
    }

    public func materialize(
        _ target: PrecomputeRequest.ComponentTarget, id: String = UUID().uuidString.lowercased(), ttlSeconds: Int?, requestedAt: Date
    ) async throws -> MaterializeOutcome {
        guard let feed = feeds[target.feed] else {
            throw MaterializeError.permanent("unknown feed '\(target.feed)'; configured: \(feeds.keys.sorted().joined(separator: ", "))")
        }
        guard let configuredTTL = feed.ttlSecondsByType[target.type] else {
            throw MaterializeError.permanent("feed '\(target.feed)' has no component of type '\(target.type.rawValue)'")
        }
        if target.type == .interleavedRecipes {
            guard let list = feed.interleaved, let rankings else {
                throw MaterializeError.permanent("feed '\(target.feed)' has no interleaved list this worker can materialize")
            }
            return try await rankings.materialize(
                .init(ranking: list.ranking, query: list.query), id: id, ttlSeconds: ttlSeconds, requestedAt: requestedAt)
        }
        let version = RankingSnapshot.version(for: requestedAt)
        if let stored = try await store.componentVersion(feed: target.feed, type: target.type, scope: target.scope), stored >= version {
            return .stale
        }
        let now = Date()
        let page: ComponentPage
        do {
            page = try await provider.items(ComponentRequest(type: target.type, scope: target.scope, limit: storedItems, now: now))
            try ComponentItemShape.validate(page.items, for: target.type)
        } catch let error as ComponentProviderError where error.code != .unavailable {
            throw MaterializeError.permanent(error.description)
        } catch let error as ComponentShapeError {
            throw MaterializeError.permanent("\(target.type.rawValue) items do not match Schemas/component.schema.json: \(error)")
        }
        let content = ComponentContent(
            feed: target.feed, type: target.type, scope: target.scope, items: page.items, version: version, createdAt: now)
        let outcome = try await store.publish(content, ttlSeconds: Self.ttl(ttlSeconds ?? configuredTTL, validUntil: page.validUntil, now: now))
        return outcome == .written ? .written(documents: page.items.count) : .stale
    }

    /// Content that changes at a known time (a campaign starts or ends) expires then, so the
    /// next reader computes it anew instead of serving what is no longer true.
    static func ttl(_ seconds: Int, validUntil: Date?, now: Date) -> Int {
        guard let validUntil else { return seconds }
        return max(1, min(seconds, Int(validUntil.timeIntervalSince(now).rounded(.up))))
    }
}
