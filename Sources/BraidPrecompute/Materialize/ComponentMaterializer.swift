import BraidCore
import BraidSources
import Foundation

/// Materializes component requests: the first items of one feed component for one scope,
/// stored with their state hash so clients and the gateway can tell unchanged content.
public struct ComponentMaterializer: Sendable {
    /// What the worker knows of one feed's components: their TTL per type.
    public struct Feed: Sendable, Hashable {
        public var ttlSecondsByType: [ComponentType: Int]

        public init(ttlSecondsByType: [ComponentType: Int]) {
            self.ttlSecondsByType = ttlSecondsByType
        }
    }

    public let store: PrecomputeStore
    public let provider: any ComponentProvider
    public let feeds: [String: Feed]
    /// Items stored per component: enough for several client pages of a horizontal row.
    public let storedItems: Int

    public init(store: PrecomputeStore, provider: any ComponentProvider, feeds: [String: Feed], storedItems: Int = 60) {
        self.store = store
        self.provider = provider
        self.feeds = feeds
        self.storedItems = max(1, storedItems)
    }

    public func materialize(
        _ target: PrecomputeRequest.ComponentTarget, ttlSeconds: Int?, requestedAt: Date
    ) async throws -> MaterializeOutcome {
        guard let feed = feeds[target.feed] else {
            throw MaterializeError.permanent("unknown feed '\(target.feed)'; configured: \(feeds.keys.sorted().joined(separator: ", "))")
        }
        guard let configuredTTL = feed.ttlSecondsByType[target.type] else {
            throw MaterializeError.permanent("feed '\(target.feed)' has no component of type '\(target.type.rawValue)'")
        }
        let version = RankingSnapshot.version(for: requestedAt)
        if let stored = try await store.component(feed: target.feed, type: target.type, scope: target.scope), stored.version >= version {
            return .stale
        }
        let page: ComponentPage
        do {
            page = try await provider.items(ComponentRequest(type: target.type, scope: target.scope, limit: storedItems))
        } catch let error as ComponentProviderError where error.code != .unavailable {
            throw MaterializeError.permanent(error.description)
        }
        let content = ComponentContent(
            feed: target.feed, type: target.type, scope: target.scope, items: page.items, version: version, createdAt: Date())
        let outcome = try await store.publish(content, ttlSeconds: ttlSeconds ?? configuredTTL)
        return outcome == .written ? .written(documents: page.items.count) : .stale
    }
}
