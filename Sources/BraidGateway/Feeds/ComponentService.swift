import BraidCore
import BraidPrecompute
import BraidSources
import Foundation
import Logging
import Metrics

/// Serves feed layouts and component contents: from Redis when workers have materialized
/// them, otherwise live from the component provider (and then a materialize request goes
/// out, so the next client finds it cached).
public struct ComponentService: Sendable {
    public let feeds: [String: FeedDefinition]
    public let store: PrecomputeStore
    public let provider: any ComponentProvider
    /// Materialize requests for contents served live, at most one per component a minute.
    public let requests: DeduplicatingPublisher
    public let codec: CursorCodec
    public let cursorTTLSeconds: Int
    /// Items workers store per component; pages beyond them are served live.
    public let storedItems: Int
    /// Deadline of a single component's live fallback.
    public let liveTimeout: Duration
    /// Decoded contents by key and version: a hit costs one small Redis read (the version)
    /// instead of reading and decoding the whole stored list.
    let nearCache: NearCache<String, ComponentContent>
    let logger: Logger

    /// Segment-scoped components are shared by every user: one segment for now.
    static let segment = "all"

    public init(
        feeds: [String: FeedDefinition], store: PrecomputeStore, provider: any ComponentProvider,
        requests: DeduplicatingPublisher, codec: CursorCodec, cursorTTLSeconds: Int, storedItems: Int, liveTimeout: Duration,
        nearCacheBytes: Int, logger: Logger
    ) {
        self.nearCache = NearCache(capacityBytes: nearCacheBytes)
        self.feeds = feeds
        self.store = store
        self.provider = provider
        self.requests = requests
        self.codec = codec
        self.cursorTTLSeconds = cursorTTLSeconds
        self.storedItems = storedItems
        self.liveTimeout = liveTimeout
        self.logger = logger
    }

    public func layout(feed: String, user: String) throws(GatewayError) -> FeedLayout {
        guard let definition = feeds[feed] else { throw Self.unknownFeed(feed, feeds) }
        return FeedLayout.make(feed: feed, definition: definition, user: user)
    }

    /// One page of one component. A backend slower than `timeout` gives a pending entry;
    /// an unreachable one a 503 when `pendingOnFailure` is false.
    public func content(
        feed: String, component: String, user: String, cursor: String?, timeout: Duration? = nil,
        pendingOnFailure: Bool = false, now: Date = Date()
    ) async throws(GatewayError) -> ComponentContentResponse {
        let resolved = try resolve(feed: feed, component: component, user: user)
        let offset = try self.offset(cursor, resolved: resolved, now: now)
        do {
            return try await Deadline.run(timeout: timeout ?? liveTimeout) { [self] in
                try await load(resolved, offset: offset, now: now)
            }
        } catch let error as GatewayError {
            throw error
        } catch is DeadlineExceeded {
            return .pending(component, type: resolved.type.rawValue)
        } catch let error as ComponentProviderError where error.code != .unavailable {
            throw .badRequest(error.message, code: "invalid_scope")
        } catch {
            if pendingOnFailure { return .pending(component, type: resolved.type.rawValue) }
            throw .unavailable("component \(component) is unavailable: \(error)", code: "component_unavailable")
        }
    }

    /// Several components at once, in request order, each with its own deadline.
    public func batch(feed: String, components: [String], user: String, timeout: Duration) async throws(GatewayError) -> [ComponentContentResponse] {
        for component in components { _ = try resolve(feed: feed, component: component, user: user) }
        return await withTaskGroup(of: (Int, ComponentContentResponse).self) { group in
            for (index, component) in components.enumerated() {
                group.addTask {
                    do {
                        return (index, try await content(feed: feed, component: component, user: user, cursor: nil, timeout: timeout, pendingOnFailure: true))
                    } catch {
                        return (index, .pending(component, type: feeds[feed]?.components[component]?.type.rawValue ?? ""))
                    }
                }
            }
            var results = [ComponentContentResponse?](repeating: nil, count: components.count)
            for await (index, response) in group { results[index] = response }
            return results.compactMap { $0 }
        }
    }

    struct Resolved: Sendable {
        var feed: String
        var id: String
        var section: FeedComponent
        var type: ComponentType
        var scope: ComponentScope
        var user: String

        /// Binds cursors to one component of one user.
        var cursorBinding: UInt64 { QueryNormalizer.hash("component\u{0}\(feed)\u{0}\(id)\u{0}\(user)") }
    }

    func resolve(feed: String, component: String, user: String) throws(GatewayError) -> Resolved {
        guard let definition = feeds[feed] else { throw Self.unknownFeed(feed, feeds) }
        guard let section = definition.components[component] else {
            throw .notFound("feed '\(feed)' has no component '\(component)'; it has: \(definition.components.keys.sorted().joined(separator: ", "))")
        }
        let scope: ComponentScope = switch section.scope {
        case .category: ComponentScope(category: section.category)
        case .segment: ComponentScope(segment: Self.segment)
        case .user: ComponentScope(user: user)
        }
        return Resolved(feed: feed, id: component, section: section, type: section.type, scope: scope, user: user)
    }

    func offset(_ cursor: String?, resolved: Resolved, now: Date) throws(GatewayError) -> Int {
        guard let cursor else { return 0 }
        let decoded = try codec.decodeRequestCursor(cursor, now: now)
        guard decoded.queryHash == resolved.cursorBinding, decoded.pageSize == resolved.section.pageSize else {
            throw .badRequest("the cursor belongs to another component or user", code: "cursor_mismatch")
        }
        return decoded.offset
    }

    func load(_ resolved: Resolved, offset: Int, now: Date) async throws -> ComponentContentResponse {
        let pageSize = resolved.section.pageSize
        let cached: ComponentContent?
        do {
            cached = try await cachedContent(resolved)
        } catch {
            // Redis trouble: the live provider still has the content.
            logger.warning("component cache unreachable; serving live", metadata: ["error": "\(error)"])
            cached = nil
        }
        if let cached, offset + pageSize <= cached.items.count || cached.items.count < storedItems {
            Counter(label: "braid_gateway_component_cache_hits_total").increment()
            let items = Array(cached.items.dropFirst(offset).prefix(pageSize))
            let more = offset + pageSize < cached.items.count || (cached.items.count >= storedItems && items.count == pageSize)
            return response(resolved, items: items, source: .cached, nextOffset: more ? offset + pageSize : nil, now: now)
        }
        if cached == nil {
            Counter(label: "braid_gateway_component_cache_misses_total").increment()
            await requestMaterialization(resolved)
        }
        let page = try await provider.items(ComponentRequest(type: resolved.type, scope: resolved.scope, limit: pageSize, offset: offset))
        return response(resolved, items: page.items, source: .live, nextOffset: page.nextOffset, now: now)
    }

    /// The stored content, through the near-cache when the stored version is the cached one.
    func cachedContent(_ resolved: Resolved) async throws -> ComponentContent? {
        let (feed, type, scope) = (resolved.feed, resolved.type, resolved.scope)
        guard let version = try await store.componentVersion(feed: feed, type: type, scope: scope) else { return nil }
        let key = store.keys.component(feed: feed, type: type, scope: scope)
        if let content = nearCache.value(for: "\(key)@\(version)") { return content }
        guard let stored = try await store.storedComponent(feed: feed, type: type, scope: scope) else { return nil }
        nearCache.insert(stored.content, bytes: stored.bytes, for: "\(key)@\(stored.content.version)")
        Gauge(label: "braid_gateway_component_near_cache_bytes").record(nearCache.bytes)
        return stored.content
    }

    func response(_ resolved: Resolved, items: [JSONValue], source: ComponentContentResponse.Source, nextOffset: Int?, now: Date) -> ComponentContentResponse {
        let cursor = nextOffset.map { next in
            codec.encode(Cursor(
                snapshotVersion: nil, offset: next, pageSize: resolved.section.pageSize, configurationHash: 0, seed: 0,
                queryHash: resolved.cursorBinding, expiresAt: Int64(now.timeIntervalSince1970) + Int64(cursorTTLSeconds)))
        }
        return ComponentContentResponse(
            component: resolved.id, type: resolved.type.rawValue, status: .ready, source: source,
            stateHash: ComponentContent.stateHash(of: items), items: items, nextCursor: cursor)
    }

    /// Asks the workers for this content unless that was done recently; never fails the page.
    func requestMaterialization(_ resolved: Resolved) async {
        do {
            try await requests.publish(
                PrecomputeRequest(body: .component(.init(feed: resolved.feed, type: resolved.type, scope: resolved.scope))), reason: "miss")
        } catch {
            logger.warning("could not request a component", metadata: ["component": "\(resolved.id)", "error": "\(error)"])
        }
    }

    static func unknownFeed(_ feed: String, _ feeds: [String: FeedDefinition]) -> GatewayError {
        .notFound("no feed '\(feed)'; configured: \(feeds.keys.sorted().joined(separator: ", "))")
    }
}
