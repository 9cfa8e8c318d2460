import BraidContracts
import BraidCore
import BraidObservability
import BraidPrecompute
import BraidSources
import Foundation
import Logging
import Metrics

/// Serves feed layouts and component contents: from Redis when workers have materialized
/// them (a page is a slice of the stored bytes, served without decoding), otherwise live
/// from the component provider (and then a materialize request goes out, so the next client
/// finds it cached). Interleaved lists are pages of ``SearchService``; searches inside a
/// profile tab (`q`) are always live.
///
/// A class: every request's closures capture it, and copying a struct of this many
/// references would retain and release each of them every time.
public final class ComponentService: Sendable {
    public let feeds: [String: FeedDefinition]
    public let store: PrecomputeStore
    public let provider: any ComponentProvider
    /// Pages of `interleaved_recipes` components; nil: such components are unavailable.
    public let search: SearchService?
    /// Materialize requests for contents served live, at most one per component a minute.
    public let requests: DeduplicatingPublisher
    public let codec: CursorCodec
    public let cursorTTLSeconds: Int
    /// Items workers store per component; pages beyond them are served live.
    public let storedItems: Int
    /// Deadline of a single component's live fallback.
    public let liveTimeout: Duration
    /// Stored contents by key and version: a hit costs one small Redis read (the version)
    /// instead of reading the whole stored list, and none while key tracking keeps the
    /// version current. Versions are immutable, so a hit is never stale.
    let nearCache: NearCache<String, CachedComponent>
    /// Components' stored versions kept current by key tracking; nil without it.
    let tracked: TrackedVersions?
    /// Asks for stored contents again before they expire; nil: only a miss asks.
    let refreshAhead: ComponentRefreshAhead?
    let metrics: Metrics
    let logger: Logger
    /// Which missed per-user contents are requested from the workers (``PrecomputeAdmission``):
    /// a made-up user's first visits are served live and cost the workers nothing.
    let admission: PrecomputeAdmission
    /// Signs layout impression ids; nil: layouts carry none (gateways built in code without events).
    let layoutImpressions: ImpressionCodec?

    struct Metrics: Sendable {
        let hits = Counter(.gatewayComponentCacheHits)
        let misses = Counter(.gatewayComponentCacheMisses)
        let nearCacheBytes = Gauge(.gatewayComponentNearCacheBytes)
    }

    public init(
        feeds: [String: FeedDefinition], store: PrecomputeStore, provider: any ComponentProvider, search: SearchService? = nil,
        requests: DeduplicatingPublisher, codec: CursorCodec, cursorTTLSeconds: Int, storedItems: Int, liveTimeout: Duration,
        nearCacheBytes: Int, admission: PrecomputeAdmission = .everything, tracked: TrackedVersions? = nil,
        layoutImpressions: ImpressionCodec? = nil, refreshAhead: ComponentRefreshAhead? = nil, logger: Logger
    ) {
        self.refreshAhead = refreshAhead
        self.layoutImpressions = layoutImpressions
        self.admission = admission
        self.tracked = tracked
        self.nearCache = NearCache(capacityBytes: nearCacheBytes, name: "component")
        self.feeds = feeds
        self.store = store
        self.provider = provider
        self.search = search
        self.requests = requests
        self.codec = codec
        self.cursorTTLSeconds = cursorTTLSeconds
        self.storedItems = storedItems
        self.liveTimeout = liveTimeout
        self.metrics = Metrics()
        self.logger = logger
    }

    /// The layout of `feed` for `user`; under a layout experiment it carries a signed impression
    /// id naming the variant, keyed by the user (kind `user` when `verified`, else the claimed
    /// name's key of kind `session`) and by the client's `session`.
    public func layout(
        feed: String, user: String, session: String? = nil, verified: Bool = false, userInURLs: Bool = true, now: Date = Date()
    ) throws(GatewayError) -> FeedLayout {
        guard let definition = feeds[feed] else { throw Self.unknownFeed(feed, feeds) }
        var layout = FeedLayout.make(feed: feed, definition: definition, user: user, userInURLs: userInURLs)
        if let experiment = layout.experiment, let impressions = layoutImpressions {
            let impression = LayoutImpression(
                experiment: experiment, feed: feed, variant: layout.bucket,
                userKey: verified ? impressions.userKey(user: user, session: nil) : impressions.userKey(user: nil, session: user),
                sessionKey: session.map { impressions.userKey(user: nil, session: $0) }, issuedAt: Int64(now.timeIntervalSince1970),
                nonce: UInt64.random(in: 0...UInt64.max))
            layout.impressionID = impressions.encode(impression)
        }
        return layout
    }

    /// One page of one component. `query` searches inside a profile tab. A backend slower
    /// than `timeout` gives a pending entry; an unreachable one a 503 when `pendingOnFailure`
    /// is false. `verified`: the request's credential proved it is `user`, so an interleaved
    /// page's impression id is keyed by the user and its events are accepted only from them.
    public func content(
        feed: String, component: String, user: String, cursor: String?, query: String? = nil, verified: Bool = false,
        timeout: Duration? = nil, pendingOnFailure: Bool = false, now: Date = Date()
    ) async throws(GatewayError) -> ComponentContentResponse {
        let resolved = try resolve(feed: feed, component: component, user: user, query: query, verified: verified)
        // An interleaved list's cursor is a search cursor, checked by the search service.
        let offset = resolved.type == .interleavedRecipes ? 0 : try self.offset(cursor, resolved: resolved, now: now)
        if let page = pageInMemory(resolved, offset: offset, now: now) { return page }
        do {
            return try await Deadline.run(timeout: timeout ?? liveTimeout) { [self] in
                try await page(resolved, cursor: cursor, offset: offset, now: now)
            }
        } catch let error as GatewayError {
            if pendingOnFailure, error.isUnavailable { return .pending(component, type: resolved.type.rawValue) }
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

    /// Several components' first pages at once, in request order, under one deadline: a
    /// component that fails or misses it is `pending`, the others are unaffected. A name listed
    /// several times is loaded once and its entry repeated at each place it was asked for, so
    /// twenty copies of one name cost one load (one live query), not twenty.
    public func batch(
        feed: String, components: [String], user: String, verified: Bool = false, timeout: Duration
    ) async throws(GatewayError) -> [ComponentContentResponse] {
        var distinct: [Resolved] = []
        var index: [String: Int] = [:]
        for component in components where index[component] == nil {
            index[component] = distinct.count
            distinct.append(try resolve(feed: feed, component: component, user: user, query: nil, verified: verified))
        }
        let now = Date()
        // Pages known without I/O are answered here; only the rest pay for tasks and a timer.
        var contents = distinct.map { pageInMemory($0, offset: 0, now: now) }
        let remaining = contents.indices.filter { contents[$0] == nil }
        let results = await Deadline.runEach(timeout: timeout, remaining.map { position in
            { @Sendable [self, resolved = distinct[position]] in try await page(resolved, cursor: nil, offset: 0, now: now) }
        })
        for (position, result) in zip(remaining, results) {
            contents[position] = (try? result.get()) ?? .pending(distinct[position].id, type: distinct[position].type.rawValue)
        }
        return components.map { contents[index[$0]!]! }
    }

    /// One page of a component, from the cache or live, with no deadline of its own.
    func page(_ resolved: Resolved, cursor: String?, offset: Int, now: Date) async throws -> ComponentContentResponse {
        resolved.type == .interleavedRecipes
            ? try await interleaved(resolved, cursor: cursor, now: now)
            : try await load(resolved, offset: offset, now: now)
    }

    struct Resolved: Sendable {
        var feed: String
        var id: String
        var section: FeedComponent
        var type: ComponentType
        var scope: ComponentScope
        var user: String
        /// A search inside a profile tab.
        var query: String?
        /// Whether `user` is the request's verified user (see ``ComponentService/content``).
        var verified = false

        /// Binds cursors to one component of one user (and one tab search).
        var cursorBinding: UInt64 {
            QueryNormalizer.hash("component\u{0}\(feed)\u{0}\(id)\u{0}\(user)" + (query.map { "\u{0}q\u{0}" + QueryNormalizer.normalize($0) } ?? ""))
        }

        /// The state hash of a fixed-size component (nil for lists: theirs is the content's).
        var fixedStateHash: String? {
            type.sizing == .fixed
                ? ComponentHash.fixed(type: type, style: section.style, width: section.width, height: section.height) : nil
        }
    }

    func resolve(feed: String, component: String, user: String, query: String?, verified: Bool = false) throws(GatewayError) -> Resolved {
        guard let definition = feeds[feed] else { throw Self.unknownFeed(feed, feeds) }
        guard let section = definition.components[component] else {
            throw .notFound("feed '\(feed)' has no component '\(component)'; it has: \(definition.components.keys.sorted().joined(separator: ", "))")
        }
        if query != nil, !section.type.isSearchableTab {
            throw .badRequest("component '\(component)' (\(section.type.rawValue)) does not accept q; profile tabs do", code: "invalid_parameter")
        }
        return Resolved(
            feed: feed, id: component, section: section, type: section.type, scope: section.scope(user: user), user: user, query: query,
            verified: verified)
    }

    func offset(_ cursor: String?, resolved: Resolved, now: Date) throws(GatewayError) -> Int {
        guard let cursor else { return 0 }
        return try RequestCursors(codec: codec, lifetimeSeconds: cursorTTLSeconds)
            .component(cursor, binding: resolved.cursorBinding, pageSize: resolved.section.pageSize, now: now).offset
    }

    func load(_ resolved: Resolved, offset: Int, now: Date) async throws -> ComponentContentResponse {
        let pageSize = resolved.section.pageSize
        // A tab search is answered live: its results are not materialized.
        if resolved.query == nil {
            let cached: CachedComponent?
            do {
                cached = try await cachedContent(resolved)
            } catch {
                // Redis trouble or a value Braid did not write: the live provider still has the content.
                logger.warning("component cache unusable; serving live", metadata: ["component": "\(resolved.id)", "error": "\(error)"])
                cached = nil
            }
            if let cached, let page = cachedPage(cached, resolved: resolved, offset: offset, now: now) { return page }
            if cached == nil {
                metrics.misses.increment()
                // Segment and category contents are few (the configuration names them); a user's are as many as users.
                let admitted =
                    resolved.section.scope != .user
                    ? true
                    : await admission.admit(store.keys.component(feed: resolved.feed, type: resolved.type, scope: resolved.scope), kind: "component")
                if admitted {
                    await requestMaterialization(resolved)
                }
            }
        }
        let page = try await provider.items(
            ComponentRequest(type: resolved.type, scope: resolved.scope, limit: pageSize, offset: offset, query: resolved.query, now: now))
        return .ready(
            resolved.id, type: resolved.type, sizing: resolved.fixedStateHash, source: .live,
            joined: ArraySlice(try CanonicalJSON.joined(page.items)), count: page.items.count,
            nextCursor: page.nextOffset.map { cursor(resolved, offset: $0, now: now) })
    }

    /// A page of an interleaved list: a search page of the component's query and ranking, the
    /// user as its session; the cursor is the search cursor (it pins the snapshot). A
    /// team-draft page is experiment traffic like a search page, with the same credit window
    /// and validity: its impression id names this component, outside the items.
    func interleaved(_ resolved: Resolved, cursor: String?, now: Date) async throws -> ComponentContentResponse {
        guard let search, let query = resolved.section.query else {
            throw GatewayError.unavailable("component \(resolved.id) has no search service", code: "component_unavailable")
        }
        var parameters = SearchParameters(
            query: query, perPage: resolved.section.pageSize, cursor: cursor, ranking: resolved.section.ranking, session: resolved.user,
            user: resolved.verified ? resolved.user : nil)
        parameters.component = FeedComponentName(feed: resolved.feed, component: resolved.id)
        let page = try await search.page(parameters, now: now)
        var content = ComponentContentResponse.ready(
            resolved.id, type: resolved.type, sizing: nil, source: page.interleaving.snapshot == nil ? .live : .interleaved,
            joined: ArraySlice(try CanonicalJSON.joined(page.items)), count: page.items.count, nextCursor: page.nextCursor)
        content.impressionID = page.impressionID
        return content
    }

    /// The page at `offset` of the stored content, when the cache holds all it needs: nil when
    /// the stored items end before the page does (the live provider has the rest).
    func cachedPage(_ cached: CachedComponent, resolved: Resolved, offset: Int, now: Date) -> ComponentContentResponse? {
        let (pageSize, count) = (resolved.section.pageSize, cached.stored.count)
        guard offset + pageSize <= count || count < storedItems else { return nil }
        metrics.hits.increment()
        if let refreshAhead, resolved.type != .interleavedRecipes {
            // The worker stores a content for the feed's TTL from its version (the request's time);
            // content that changes at a known time (a campaign) may expire sooner and is then missed.
            let expiresAt = Date(timeIntervalSince1970: Double(cached.stored.version) / 1_000 + Double(resolved.section.ttlSeconds))
            refreshAhead.consider(.init(feed: resolved.feed, type: resolved.type, scope: resolved.scope), expiresAt: expiresAt, now: now)
        }
        let range = offset..<min(offset + pageSize, count)
        let more = offset + pageSize < count || (count >= storedItems && range.count == pageSize)
        return .ready(
            resolved.id, type: resolved.type, sizing: resolved.fixedStateHash, source: .cached,
            joined: cached.stored.joinedItems(range), etag: cached.etag(of: range), count: max(0, range.count),
            nextCursor: more ? cursor(resolved, offset: offset + pageSize, now: now) : nil)
    }

    /// A stored page answered from memory alone: key tracking names the current version and
    /// the near-cache holds it. Such a page needs no deadline, no task and no Redis.
    func pageInMemory(_ resolved: Resolved, offset: Int, now: Date) -> ComponentContentResponse? {
        guard let tracked, resolved.query == nil, resolved.type != .interleavedRecipes else { return nil }
        let key = store.keys.component(feed: resolved.feed, type: resolved.type, scope: resolved.scope)
        guard let cached = inMemory(key, tracked: tracked) else { return nil }
        return cachedPage(cached, resolved: resolved, offset: offset, now: now)
    }

    /// The near-cache's entry for the version key tracking names for `key`, if both are there.
    private func inMemory(_ key: String, tracked: TrackedVersions) -> CachedComponent? {
        guard let version = tracked.version(for: key) else { return nil }
        return nearCache.value(for: "\(key)@\(version)")
    }

    /// The stored content, through the near-cache when the stored version is the cached one:
    /// known without I/O while key tracking keeps it current, otherwise one small read.
    func cachedContent(_ resolved: Resolved) async throws -> CachedComponent? {
        let (feed, type, scope) = (resolved.feed, resolved.type, resolved.scope)
        let key = store.keys.component(feed: feed, type: type, scope: scope)
        if let tracked, let content = inMemory(key, tracked: tracked) { return content }
        let ticket = tracked?.ticket(for: key)
        func remember(_ version: Int64) {
            if let tracked, let ticket { tracked.remember(version, for: key, ticket: ticket) }
        }
        guard let version = try await store.componentVersion(feed: feed, type: type, scope: scope) else { return nil }
        if let content = nearCache.value(for: "\(key)@\(version)") {
            remember(version)
            return content
        }
        guard let stored = try await store.storedComponent(feed: feed, type: type, scope: scope) else { return nil }
        remember(stored.version)
        let cached = CachedComponent(stored)
        nearCache.insert(cached, bytes: cached.bytes, for: "\(key)@\(stored.version)")
        metrics.nearCacheBytes.record(nearCache.bytes)
        return cached
    }

    func cursor(_ resolved: Resolved, offset: Int, now: Date) -> String {
        codec.encode(ComponentCursor(
            offset: offset, pageSize: resolved.section.pageSize, binding: resolved.cursorBinding,
            expiresAt: Int64(now.timeIntervalSince1970) + Int64(cursorTTLSeconds)))
    }

    /// Asks the workers for this content unless that was done recently; never fails the page.
    func requestMaterialization(_ resolved: Resolved) async {
        do {
            let published = try await requests.publish(
                PrecomputeRequest(body: .component(.init(feed: resolved.feed, type: resolved.type, scope: resolved.scope))), reason: "miss")
            if published { Counter(.gatewayComponentRequests, dimensions: [("reason", "miss")]).increment() }
        } catch {
            logger.warning("could not request a component", metadata: ["component": "\(resolved.id)", "error": "\(error)"])
        }
    }

    static func unknownFeed(_ feed: String, _ feeds: [String: FeedDefinition]) -> GatewayError {
        .notFound("no feed '\(feed)'; configured: \(feeds.keys.sorted().joined(separator: ", "))")
    }
}
