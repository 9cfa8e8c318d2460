import BraidContracts
import BraidCore
import BraidExperiments
import BraidObservability
import BraidPrecompute
import BraidRedis
import BraidSources
import Foundation
import Logging
import Metrics
import Tracing

/// Builds pages of `GET /v1/search`: plans the page (BraidCore), fetches B's snapshot and
/// A's documents, and pins the walk to that snapshot through the next cursor. A walk's later
/// pages take A's best documents it has not shown yet (``WalkRecord``, in ``walks``).
public struct SearchService: Sendable {
    public let arms: ArmSelector
    public let snapshots: SnapshotReader
    public let misses: SnapshotMisses
    public let source: any SearchSource
    public let codec: CursorCodec
    /// The checks of the cursors clients send.
    let cursors: RequestCursors
    public let impressions: ImpressionCodec
    public let cursorTTLSeconds: Int
    public let liveTimeout: Duration
    /// Walk records; nil: walks are paged by offset (`gateway.walk_max_bytes` 0).
    public let walks: WalkStore?
    /// Where broad queries wait for their turn (``FTSMatchExpression/isBroad(_:)``); nil: no limit.
    let broadSearches: ConcurrencyLimit?
    /// Broad searches that may wait per place; more are turned away at once.
    static let broadWaitingPerPlace = 64
    /// Where B's placed documents stand in A, per snapshot version
    /// (``liveRange(query:excluding:range:vouched:positionsOf:)``); nil: pages exclude them in
    /// the live query.
    let placedPositions: NearCache<PlacedPositionsKey, PlacedPositions>?
    let logger: Logger

    /// - Parameter placedPositionsBytes: the bound of ``placedPositions``; 0 turns it off.
    public init(
        arms: ArmSelector, snapshots: SnapshotReader, misses: SnapshotMisses, source: any SearchSource,
        codec: CursorCodec, impressions: ImpressionCodec, cursorTTLSeconds: Int, liveTimeout: Duration, walks: WalkStore? = nil,
        broadSearchConcurrency: Int = 0, placedPositionsBytes: Int = 0, logger: Logger
    ) {
        self.placedPositions = placedPositionsBytes > 0 ? NearCache(capacityBytes: placedPositionsBytes, name: "placed_positions") : nil
        self.walks = walks
        self.broadSearches = broadSearchConcurrency > 0
            ? ConcurrencyLimit(limit: broadSearchConcurrency, maxWaiting: Self.broadWaitingPerPlace * broadSearchConcurrency) : nil
        self.impressions = impressions
        self.arms = arms
        self.snapshots = snapshots
        self.misses = misses
        self.source = source
        self.codec = codec
        self.cursors = RequestCursors(codec: codec, lifetimeSeconds: cursorTTLSeconds)
        self.cursorTTLSeconds = cursorTTLSeconds
        self.liveTimeout = liveTimeout
        self.logger = logger
    }

    /// Where a page starts and what it is pinned to: from a cursor, or from `page`/`per_page`.
    struct Position {
        var offset: Int
        var size: Int
        var seed: UInt64
        /// Nil: page 1 of a session (or classic pagination), which uses the current snapshot.
        var pinned: SearchCursor?
        /// The cursor's walk, or (no cursor) the walk that begins with this page.
        var walk: WalkState

        /// A page of a walk whose A documents come from its record: the walk has shown some
        /// and A has not run out.
        var readsRecord: Bool { pinned != nil && walk.mode == .recorded && walk.exhaustedTotal == nil }

        /// Which snapshot a two-ranking page reads.
        var pin: SnapshotPin { pinned.map { .version($0.snapshotVersion) } ?? .current }

        /// Which snapshot a multileave page reads for cached ranking `team` (1-based).
        func pin(ofTeam team: Int) -> SnapshotPin { pinned.map { .version($0.snapshotVersion(ofTeam: team)) } ?? .current }
    }

    /// Which snapshot of a cached ranking a page reads.
    enum SnapshotPin {
        /// The current one: page 1 of a session, and `page=k` pages.
        case current
        /// The version the session's first page used; nil for a live-only session.
        case version(Int64?)
    }

    /// B for one page, and whether Redis trouble made the page live-only.
    struct SecondaryRanking {
        var snapshot: RankingSnapshot?
        /// The version the next cursor pins (may be set while `snapshot` is nil: a pinned
        /// session that hit a Redis outage resumes interleaving when Redis is back).
        var pinnedVersion: Int64?
        var degraded = false
        /// Old enough to ask the workers for a newer one.
        var stale = false
    }

    public func page(_ parameters: SearchParameters, now: Date = Date()) async throws(GatewayError) -> SearchPage {
        guard let broadSearches, FTSMatchExpression.isBroad(parameters.query) else { return try await plannedPage(parameters, now: now) }
        guard await broadSearches.acquire(within: liveTimeout) else {
            Counter(.gatewayBroadSearchesTurnedAway).increment()
            throw .busy("too many broad searches (a one- or two-letter word, or more than 4 words) at once; try again")
        }
        defer { broadSearches.release() }
        return try await plannedPage(parameters, now: now)
    }

    /// A page, once its query may run.
    func plannedPage(_ parameters: SearchParameters, now: Date) async throws(GatewayError) -> SearchPage {
        let arm = try arms.arm(session: parameters.session, ranking: parameters.ranking)
        let query = QueryNormalizer.normalize(parameters.query)
        let position = try self.position(parameters, arm: arm, query: query, now: now)
        if !arm.multileave.isEmpty, arm.enabled {
            return try await multileavePage(parameters, arm: arm, query: query, position: position, now: now)
        }
        let configuration = arm.configuration
        let (secondary, side) = try await sides(query: parameters.query, normalized: query, arm: arm, position: position, now: now)
        let placement = PagePlacement(configuration, snapshot: secondary.snapshot, position: position)

        let planner = PagePlanner(configuration: configuration, bCount: placement.bCount, aTotal: side.total, seed: position.seed)
        let plan = planner.plan(offset: position.offset, size: position.size)
        let items = PageAssembler.items(plan: plan, hits: side.hits, hitsFrom: side.from, documents: Array(placement.placed))

        let nextOffset = position.offset + position.size
        var nextCursor: String?
        if plan.end.map({ nextOffset >= $0 }) != true {
            nextCursor = await self.nextCursor(
                SearchCursor(
                    snapshots: .single(secondary.pinnedVersion), offset: nextOffset, pageSize: position.size,
                    configurationHash: arm.configurationHash, seed: position.seed, queryHash: QueryNormalizer.hash(query),
                    expiresAt: Int64(now.timeIntervalSince1970) + Int64(cursorTTLSeconds)),
                position: position, side: side, shown: items.filter { $0.team == .a }.map(\.id),
                exhausted: side.total <= planner.counts(before: nextOffset).a)
        }
        if secondary.degraded { Counter(.gatewayDegradedPages).increment() }
        let interleaved = secondary.snapshot != nil
        // Team-draft pages are experiments; only their positions inside the list's credit
        // window (full rounds of both teams) are evidence, which the id carries.
        let impression = interleaved && configuration.mode == .teamDraft && !items.isEmpty
            ? impressions.encode(ImpressionToken(
                experiment: arm.name, offset: position.offset, teams: items.map(\.team), creditWindow: planner.creditWindow,
                nonce: UInt64.random(in: 0...UInt64.max), issuedAt: Int64(now.timeIntervalSince1970),
                userKey: impressions.userKey(user: parameters.user, session: parameters.session),
                snapshotAgeSeconds: secondary.snapshot.map { Self.ageSeconds(of: $0, now: now) },
                component: parameters.component))
            : nil
        return SearchPage(
            query: parameters.query, page: position.offset / position.size + 1, perPage: position.size, items: items,
            nextCursor: nextCursor, total: plan.end, totalIsLowerBound: side.totalIsLowerBound && plan.end != nil,
            interleaving: .init(
                ranking: interleaved ? arm.ranking : nil, snapshot: interleaved ? secondary.pinnedVersion : nil,
                start: configuration.start, pattern: configuration.patternString, mode: configuration.mode.rawValue,
                maxDocs: configuration.maxDocs, arm: arm.name),
            degraded: secondary.degraded, walk: side.mode.name, impressionID: impression)
    }

    /// How old a snapshot is at `now`, in whole seconds (0 when the clocks disagree): what the
    /// page's impression id carries, from the snapshot already read (no Redis round trip).
    static func ageSeconds(of snapshot: RankingSnapshot, now: Date) -> Int {
        let seconds = now.timeIntervalSince(snapshot.createdAt)
        return seconds.isFinite ? Int(min(max(0, seconds), Double(ImpressionToken.maxSnapshotAgeSeconds))) : 0
    }

    /// B and A's side of a two-ranking page, A's by the pager of the page's paging mode. A page
    /// planned by position whose snapshot is not known without I/O reads it while A's query
    /// runs (``parallelLive``), when the over-fetch that takes stays small.
    func sides(
        query: String, normalized: String, arm: InterleavingArm, position: Position, now: Date
    ) async throws(GatewayError) -> (SecondaryRanking, LiveSide) {
        let known = knownSecondaryRanking(arm: arm, query: normalized, pin: position.pin, now: now)
        let byOffset = position.walk.exhaustedTotal == nil && !position.readsRecord
        if known == nil, byOffset, let window = coldWindow(arm: arm, position: position, query: query) {
            let (secondary, live) = try await parallelLive(
                query: query, normalized: normalized, arm: arm, position: position, window: window, now: now)
            return (secondary, offsetPager(for: position, vouched: nil, positionsOf: nil).side(
                hits: live.hits, total: live.total, totalIsLowerBound: live.totalIsLowerBound, open: live.aRange))
        }
        let secondary: SecondaryRanking
        var record: RecordRead?
        if let known {
            secondary = known
            if position.readsRecord { record = await readRecord(position.walk) }
        } else if position.readsRecord {
            async let reading = readRecord(position.walk)
            secondary = try await secondaryRanking(arm: arm, query: normalized, pin: position.pin, now: now)
            record = await reading
        } else {
            secondary = try await secondaryRanking(arm: arm, query: normalized, pin: position.pin, now: now)
        }
        let placement = PagePlacement(arm.configuration, snapshot: secondary.snapshot, position: position)
        let positionsKey = secondary.snapshot.map {
            PlacedPositionsKey(ranking: arm.ranking, query: normalized, version: $0.version, placed: placement.placed.count)
        }
        let pager = pager(
            for: position, record: record, vouched: vouchedGeneration(secondary, normalized: normalized), positionsOf: positionsKey, now: now)
        // A child task for the refresh only when there is one: an idle one still costs a
        // hand-over between threads on every page.
        guard secondary.stale else {
            return (secondary, try await pager.side(query: query, placed: placement.placedIDs, open: placement.open.aRange))
        }
        async let refresh: Void = misses.request(ranking: arm.ranking, query: normalized, reason: "refresh")
        let side = try await pager.side(query: query, placed: placement.placedIDs, open: placement.open.aRange)
        await refresh
        return (secondary, side)
    }

    /// A's range of a page (planned as if A were endless), its hits and A's total, B's
    /// placed documents excluded.
    struct LiveRange {
        var aRange: Range<Int>
        var hits: [SearchHit]
        var total: Int
        var totalIsLowerBound = false
    }

    /// What a page's cached side places, and where its live side goes: B's placed documents
    /// (the snapshot's first m) and the page planned as if A were endless, whose A range is
    /// what the live query asks for (excluding the placed documents).
    struct PagePlacement {
        let bCount: Int
        let placed: ArraySlice<RankingSnapshot.Document>
        let open: PagePlan

        init(_ configuration: InterleavingConfiguration, snapshot: RankingSnapshot?, position: Position) {
            self.init(configuration, documents: snapshot?.documents ?? [], position: position)
        }

        /// For a snapshot of `bCount` documents not read yet (its documents unknown).
        init(_ configuration: InterleavingConfiguration, documents: [RankingSnapshot.Document], bCount: Int? = nil, position: Position) {
            self.bCount = bCount ?? documents.count
            placed = documents.prefix(configuration.placedCount(bCount: documents.count))
            open = PagePlanner(configuration: configuration, bCount: self.bCount, aTotal: nil, seed: position.seed)
                .plan(offset: position.offset, size: position.size)
        }

        var placedIDs: [String] { placed.map(\.id) }
    }

    /// The match generation a page's snapshot was ranked in, when it ranked this very query:
    /// while the source still reports that generation, each of the snapshot's documents is one
    /// of A's matches.
    func vouchedGeneration(_ secondary: SecondaryRanking, normalized: String) -> String? {
        secondary.snapshot.flatMap { $0.query == normalized ? $0.matchGeneration : nil }
    }

    /// ``liveRange(query:excluding:range:)`` for B's placed documents, which a snapshot ranked in
    /// generation `vouched` says are all A's matches: the source may then count every match
    /// and the placed ones are subtracted, instead of testing each match against them (that
    /// test is most of what a warm interleaved page's live query costs more than a live-only
    /// one). A result read from another generation is counted again with the exclusion.
    func liveRange(query: String, excluding placed: [String], range: Range<Int>, vouched: String?) async throws(GatewayError) -> SearchResult {
        guard let vouched, !placed.isEmpty else { return try await liveRange(query: query, excluding: placed, range: range) }
        var result = try await live(SearchRequest(
            query: query, excluding: placed, from: range.lowerBound, size: range.count, profile: .relevance, countsExcluded: false))
        guard result.totalIncludesExcluded else { return result }
        if result.matchGeneration == vouched {
            result.total = max(0, result.total - Set(placed).count)
        } else {
            result.total = try await liveRange(query: query, excluding: placed, range: 0..<0).total
        }
        result.totalIncludesExcluded = false
        return result
    }

    /// B for a page when no I/O is needed to know it; nil when Redis must be asked.
    func knownSecondaryRanking(arm: InterleavingArm, query: String, pin: SnapshotPin, now: Date) -> SecondaryRanking? {
        guard arm.enabled else { return SecondaryRanking() }
        switch pin {
        case .version(let version):
            guard let version else { return SecondaryRanking() }
            return snapshots.knownPinned(ranking: arm.ranking, query: query, version: version)
                .map { SecondaryRanking(snapshot: $0, pinnedVersion: version) }
        case .current:
            return snapshots.knownCurrent(ranking: arm.ranking, query: query).map { snapshot in
                let age = now.timeIntervalSince(snapshot.createdAt)
                return SecondaryRanking(snapshot: snapshot, pinnedVersion: snapshot.version, stale: age > Double(arm.refreshAfterSeconds))
            }
        }
    }

    /// Most documents a parallel live query fetches (from A's first): deeper pages of a session
    /// whose snapshot is not in the near-cache read it first instead.
    static let maxColdWindow = 200

    /// Fewest documents a cold page's prefix fetches beyond the page's A range.
    static let minimumColdSpare = 10

    /// How many of A's first documents a cold page fetches before B is known: the page's A
    /// range planned for the ranking's configured size, plus as many again (at least
    /// ``minimumColdSpare``, at most the documents the snapshot can place) for B's documents
    /// that turn out to be among them. Covering every placed document instead would fetch
    /// three times the rows of a live-only page on a first page of 20 (10 + 50) and cost more
    /// than the second query it saves; B's documents rarely crowd A's first ranks, and when
    /// they do the rest is fetched once B is known (``PrefixReconciliation``).
    ///
    /// A broad query (``FTSMatchExpression/isBroad(_:)``) covers every placed document: its
    /// statements cost what its many or very common words cost, whatever rows they return, so
    /// the second query would double its page. (It crowds most: a long query matches few
    /// documents, and B's are among them.) Nil when the window is more than ``maxColdWindow``.
    func coldWindow(arm: InterleavingArm, position: Position, query: String) -> Int? {
        let most = arm.configuration.placedCount(bCount: arm.snapshotSize)
        let aRange = PagePlacement(arm.configuration, documents: [], bCount: most, position: position).open.aRange
        let spare = FTSMatchExpression.isBroad(query) ? most : min(most, max(aRange.count, Self.minimumColdSpare))
        let window = aRange.upperBound + spare
        return window <= min(Self.maxColdWindow, SearchRequest.maxSize) ? window : nil
    }

    /// A cold page: the live query starts at once for A's first `window` documents, nothing
    /// excluded, while the snapshot is read; once B is known, the page's A range is taken from
    /// the prefix with B's placed documents removed, which is exactly what the sequential query
    /// would have returned. When more of B's documents fall inside the prefix than it spared
    /// room for (or the snapshot is larger than the ranking's configured size), the prefix is
    /// short: the rest is then fetched without the prefix's documents.
    ///
    /// A's total without the placed documents: when the snapshot was ranked in the match
    /// generation the source still reports (``RankingSnapshot/matchGeneration``), each placed
    /// document is one of A's matches, so it is the prefix's own total less their number.
    /// Otherwise A is counted without them once B is known, as the sequential path does; that
    /// count, which tests every match against B's ids, is most of what a cold page costs more
    /// than a live-only one.
    func parallelLive(
        query: String, normalized: String, arm: InterleavingArm, position: Position, window: Int, now: Date
    ) async throws(GatewayError) -> (SecondaryRanking, LiveRange) {
        async let prefixResult = liveResult(query: query, excluding: [], range: 0..<window)
        let secondary = try await secondaryRanking(arm: arm, query: normalized, pin: position.pin, now: now)
        let configuration = arm.configuration
        let placement = PagePlacement(configuration, snapshot: secondary.snapshot, position: position)
        let (placed, open) = (placement.placedIDs, placement.open)
        let vouched = vouchedGeneration(secondary, normalized: normalized)
        // A count, when one is needed, runs in this task while the prefix runs in its child (a
        // child of its own would only add hand-overs between threads); the refresh gets a child
        // only when due.
        if secondary.stale {
            async let refresh: Void = misses.request(ranking: arm.ranking, query: normalized, reason: "refresh")
            let count = await countUnlessVouched(query: query, placed: placed, vouched: vouched)
            let live = try await reconcile(
                prefix: await prefixResult, count: count, vouched: vouched, window: window, placed: placed, aRange: open.aRange, query: query)
            await refresh
            return (secondary, live)
        }
        let count = await countUnlessVouched(query: query, placed: placed, vouched: vouched)
        let live = try await reconcile(
            prefix: await prefixResult, count: count, vouched: vouched, window: window, placed: placed, aRange: open.aRange, query: query)
        return (secondary, live)
    }

    /// A's total without `placed`, counted now unless the prefix's total will do: nothing is
    /// placed, or the snapshot's match generation may vouch for it (checked in ``reconcile``).
    func countUnlessVouched(query: String, placed: [String], vouched: String?) async -> Result<SearchResult, GatewayError>? {
        guard !placed.isEmpty, vouched == nil else { return nil }
        return await liveResult(query: query, excluding: placed, range: 0..<0)
    }

    /// A's range of a cold page from the prefix (nothing excluded) and A's total without B's
    /// placed documents; the rest of the range is fetched when the prefix falls short.
    func reconcile(
        prefix: Result<SearchResult, GatewayError>, count: Result<SearchResult, GatewayError>?, vouched: String?, window: Int,
        placed: [String], aRange: Range<Int>, query: String
    ) async throws(GatewayError) -> LiveRange {
        let prefix = try prefix.get()
        let excluded = Set(placed)
        switch PrefixReconciliation.slice(prefix: prefix.hits, requested: window, excluding: excluded, range: aRange) {
        case .complete(let hits):
            let counted: SearchResult
            if let count {
                counted = try count.get()
            } else if placed.isEmpty {
                counted = prefix
            } else if let vouched, prefix.matchGeneration == vouched {
                counted = SearchResult(
                    hits: [], total: max(0, prefix.total - Set(placed).count), totalIsLowerBound: prefix.totalIsLowerBound)
            } else {
                // The source's data changed since the snapshot was ranked: count as the sequential path does.
                counted = try await liveRange(query: query, excluding: placed, range: 0..<0)
            }
            return LiveRange(aRange: aRange, hits: hits, total: counted.total, totalIsLowerBound: counted.totalIsLowerBound)
        case .short(let have, let next):
            // The rest is a second read, and the index may have changed since the prefix: it is
            // asked for without the prefix's documents rather than from an offset into a list
            // that may have moved, so none of them can come again.
            let before = prefix.hits.filter { !excluded.contains($0.id) }.map(\.id)
            let rest = try await liveRange(
                query: query, excluding: placed + before, range: (next - before.count)..<(aRange.upperBound - before.count))
            return LiveRange(
                aRange: aRange, hits: have + rest.hits, total: rest.total + before.count, totalIsLowerBound: rest.totalIsLowerBound)
        }
    }

    /// ``liveRange(query:excluding:range:)`` as a value, for a child task.
    func liveResult(query: String, excluding: [String], range: Range<Int>) async -> Result<SearchResult, GatewayError> {
        do {
            return .success(try await liveRange(query: query, excluding: excluding, range: range))
        } catch {
            return .failure(error)
        }
    }

    func position(_ parameters: SearchParameters, arm: InterleavingArm, query: String, now: Date) throws(GatewayError) -> Position {
        guard let text = parameters.cursor else {
            let seed = Bucketing.hash(parameters.session ?? query, salt: "team-draft")
            // The walk that begins here; its A base is known once the page is planned. Walks
            // paged by offset need no id (their cursors then depend on the page alone).
            let walk = walks == nil
                ? WalkState(mode: .offset, id: 0, page: 1) : WalkState(mode: .recorded, id: UInt64.random(in: 0...UInt64.max), page: 1)
            return Position(offset: (parameters.page - 1) * parameters.perPage, size: parameters.perPage, seed: seed, pinned: nil, walk: walk)
        }
        let cursor = try cursors.search(
            text, query: query, configurationHash: arm.configurationHash, perPage: parameters.perPageParameter, now: now)
        // A cursor without a walk (format versions 1 and 2, which an older gateway may have
        // issued during a rolling deploy), or one of a walk recorded by a gateway with records
        // on while this one has them off: paged by offset.
        var walk = cursor.walk ?? WalkState(mode: .offset, id: 0, page: 2)
        if walks == nil, walk.mode == .recorded {
            walk.mode = .offset
            walk.firstPageIDs = nil
        }
        return Position(offset: cursor.offset, size: cursor.pageSize, seed: cursor.seed, pinned: cursor, walk: walk)
    }

    func secondaryRanking(arm: InterleavingArm, query: String, pin: SnapshotPin, now: Date) async throws(GatewayError) -> SecondaryRanking {
        guard arm.enabled else { return SecondaryRanking() }
        if case .version(let pinned) = pin {
            guard let version = pinned else { return SecondaryRanking() }  // a live-only session
            do {
                let read = try await traceSnapshotRead(ranking: arm.ranking, pinned: version) {
                    try await snapshots.pinned(ranking: arm.ranking, query: query, version: version)
                }
                guard let snapshot = read else {
                    throw GatewayError.badRequest(
                        "the snapshot this session was pinned to has expired; start again from page 1", code: "cursor_expired")
                }
                return SecondaryRanking(snapshot: snapshot, pinnedVersion: version)
            } catch let error as GatewayError {
                throw error
            } catch {
                logDegraded(error)
                return SecondaryRanking(pinnedVersion: version, degraded: true)
            }
        }
        do {
            if let snapshot = try await traceSnapshotRead(ranking: arm.ranking, pinned: nil, { try await snapshots.current(ranking: arm.ranking, query: query) }) {
                let age = now.timeIntervalSince(snapshot.createdAt)
                return SecondaryRanking(
                    snapshot: snapshot, pinnedVersion: snapshot.version, stale: age > Double(arm.refreshAfterSeconds))
            }
            // The long tail (seen fewer than `gateway.admission.threshold` times lately) is
            // served live-only: no source query for B, no Redis keys, no worker request.
            guard await misses.admit(ranking: arm.ranking, query: query) else { return SecondaryRanking() }
            switch arm.missPolicy {
            case .async:
                await misses.request(ranking: arm.ranking, query: query, reason: "miss")
                return SecondaryRanking()
            case .inline:
                try await misses.computeInline(ranking: arm.ranking, query: query)
                let computed = try await traceSnapshotRead(ranking: arm.ranking, pinned: nil) {
                    try await snapshots.current(ranking: arm.ranking, query: query)
                }
                guard let snapshot = computed else { return SecondaryRanking() }
                return SecondaryRanking(snapshot: snapshot, pinnedVersion: snapshot.version)
            }
        } catch let error as SearchSourceError {
            throw Self.gatewayError(error)
        } catch {
            logDegraded(error)
            return SecondaryRanking(degraded: true)
        }
    }

    func liveRange(query: String, excluding: [String], range: Range<Int>) async throws(GatewayError) -> SearchResult {
        try await live(SearchRequest(query: query, excluding: excluding, from: range.lowerBound, size: range.count, profile: .relevance))
    }

    /// One live query, as a `live.query` span, within ``liveTimeout``; its failures as the
    /// gateway answers them.
    func live(_ request: SearchRequest) async throws(GatewayError) -> SearchResult {
        do {
            return try await withSpan("live.query", ofKind: .client) { span in
                span.attributes["braid.live.from"] = request.from
                span.attributes["braid.live.size"] = request.size
                span.attributes["braid.live.excluded"] = request.excluding.count
                if let ids = request.ids { span.attributes["braid.live.ids"] = ids.count }
                let result = try await Deadline.run(timeout: liveTimeout) { [source] in try await source.search(request) }
                span.attributes["braid.live.hits"] = result.hits.count
                return result
            }
        } catch let error as SearchSourceError {
            throw Self.gatewayError(error)
        } catch is DeadlineExceeded {
            throw .unavailable("the live search backend did not answer within \(liveTimeout)", code: "live_timeout")
        } catch {
            throw .unavailable("the live search backend failed: \(error)", code: "live_unavailable")
        }
    }

    /// A snapshot read from Redis (the pointer and, unless near-cached, the version) as a
    /// `snapshot.read` span of the page; `pinned` is the cursor's version, nil for the current one.
    func traceSnapshotRead(
        ranking: String, pinned: Int64?, _ read: () async throws -> RankingSnapshot?
    ) async throws -> RankingSnapshot? {
        try await withSpan("snapshot.read", ofKind: .client) { span in
            span.attributes["braid.ranking"] = ranking
            if let pinned { span.attributes["braid.pinned_version"] = Int(pinned) }
            let snapshot = try await read()
            span.attributes["braid.snapshot.found"] = snapshot != nil
            if let snapshot { span.attributes["braid.snapshot.version"] = Int(snapshot.version) }
            return snapshot
        }
    }

    static func gatewayError(_ error: SearchSourceError) -> GatewayError {
        switch error.code {
        case .badQuery: .badRequest(error.message, code: "bad_query")
        case .timeout: .unavailable("the live search backend timed out: \(error.message)", code: "live_timeout")
        default: .unavailable("the live search backend is unavailable: \(error.message)", code: "live_unavailable")
        }
    }

    func logDegraded(_ error: any Error) {
        logger.warning("Redis unreachable; serving a live-only page", metadata: ["error": "\(error)"])
    }
}
