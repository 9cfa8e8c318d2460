import BraidConfig
import BraidContracts
import BraidCore
import BraidGateway
import BraidPrecompute
import BraidSources
import BraidTestSupport
import BraidWiring
import Dispatch
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing

/// Cold pages (the snapshot not in the near-cache): the live query starts at once and the
/// snapshot is read alongside it, and the page is exactly the one the sequential path (snapshot
/// first, then the live query without B's documents) gives. Proved with a store and a source
/// that record when each call starts and ends, not with a stopwatch.
@Suite("Cold pages", .serialized, .integration)
struct ColdPageTests {
    /// What happened when, in order of the shared clock.
    final class Recorder: Sendable {
        struct Event: Sendable, CustomStringConvertible {
            var what: String
            var start: ContinuousClock.Instant
            var end: ContinuousClock.Instant
            var description: String { what }
        }

        private let events = Mutex<[Event]>([])

        func record<T>(_ what: String, delay: Duration, _ body: () async throws -> T) async throws -> T {
            let start = ContinuousClock.now
            // Deaf to cancellation, like a network read: the delay always elapses.
            if delay > .zero { await Self.sleep(delay) }
            let result = try await body()
            let end = ContinuousClock.now
            events.withLock { $0.append(Event(what: what, start: start, end: end)) }
            return result
        }

        var all: [Event] { events.withLock { $0 } }
        func reset() { events.withLock { $0.removeAll() } }

        static func sleep(_ delay: Duration) async {
            let nanoseconds = delay.components.seconds * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) { continuation.resume() }
            }
        }
    }

    /// The real store on the real Redis, each read delayed and recorded.
    struct DelayingStore: SnapshotStore {
        let base: PrecomputeStore
        let delay: Duration
        let recorder: Recorder

        func currentVersion(ranking: String, query: String) async throws -> Int64? {
            try await recorder.record("redis pointer", delay: delay) { try await base.currentVersion(ranking: ranking, query: query) }
        }

        func storedSnapshot(ranking: String, query: String, version: Int64) async throws -> (snapshot: RankingSnapshot, bytes: Int)? {
            try await recorder.record("redis snapshot", delay: delay) { try await base.storedSnapshot(ranking: ranking, query: query, version: version) }
        }

        func currentSnapshot(ranking: String, query: String, unless held: Int64?) async throws -> CurrentSnapshotRead {
            try await recorder.record("redis current", delay: delay) { try await base.currentSnapshot(ranking: ranking, query: query, unless: held) }
        }
    }

    /// The real store, with what each read of the current snapshot came back as.
    final class OutcomeRecordingStore: SnapshotStore {
        let base: PrecomputeStore
        let outcomes = Mutex<[String]>([])

        init(base: PrecomputeStore) {
            self.base = base
        }

        func currentVersion(ranking: String, query: String) async throws -> Int64? {
            try await base.currentVersion(ranking: ranking, query: query)
        }

        func storedSnapshot(ranking: String, query: String, version: Int64) async throws -> (snapshot: RankingSnapshot, bytes: Int)? {
            try await base.storedSnapshot(ranking: ranking, query: query, version: version)
        }

        func currentSnapshot(ranking: String, query: String, unless held: Int64?) async throws -> CurrentSnapshotRead {
            let read = try await base.currentSnapshot(ranking: ranking, query: query, unless: held)
            let outcome = switch read {
            case .none: "none"
            case .held: "held"
            case .read: "read"
            case .expired: "expired"
            }
            outcomes.withLock { $0.append(outcome) }
            return read
        }
    }

    /// The real SQLite source, each query delayed and recorded (with what it asked for).
    struct DelayingSource: SearchSource {
        let base: any SearchSource
        let delay: Duration
        let recorder: Recorder

        func search(_ request: SearchRequest) async throws -> SearchResult {
            let kind = request.excluding.isEmpty && request.size > 0 ? "live prefix" : request.size == 0 ? "live count" : "live range"
            return try await recorder.record("\(kind) \(request.from)+\(request.size)", delay: delay) { try await base.search(request) }
        }
    }

    /// A search service over `gateway`'s Redis and corpus with `store`, `source` and caches of
    /// its own: near-cache and pointer cache off (cold), or on (the sequential path once warm).
    /// `positions`: pages leave B's placed documents out by where they stand in A, when the
    /// source can say (``SearchService/liveRange(query:excluding:range:vouched:positionsOf:)``).
    static func service(
        _ gateway: GatewayAssembly, store: any SnapshotStore, source: any SearchSource, cold: Bool, positions: Bool = false
    ) -> SearchService {
        let search = gateway.routes.search
        return SearchService(
            arms: search.arms,
            snapshots: SnapshotReader(store: store, nearCacheBytes: cold ? 0 : 64 << 20, pointerTTL: cold ? .zero : .seconds(3_600)),
            misses: search.misses, source: source, codec: search.codec, impressions: search.impressions,
            cursorTTLSeconds: 600, liveTimeout: .seconds(30), placedPositionsBytes: positions ? 1 << 20 : 0, logger: Logger(label: "test"))
    }

    /// A gateway over a fresh corpus of `documents` recipes, with the real store on its Redis,
    /// the real SQLite source and a materializer that writes snapshots through both.
    static func withCorpus(
        documents: Int,
        _ body: @escaping @Sendable (GatewayAssembly, PrecomputeStore, SQLiteSearchSource, RankingMaterializer) async throws -> Void
    ) async throws {
        let fixture = try await WorkerFixture(documents: documents, users: 20)
        let configuration = GatewayHarness.configuration(fixture)
        try await GatewayHarness.with(configuration) { [configuration] _, gateway in
            let store = PrecomputeStore(redis: gateway.redis, keys: configuration.redis.cacheKeys)
            let sqlite = SQLiteSearchSource(path: fixture.corpus.path)
            defer { Task { try? await sqlite.shutdown() } }
            let materializer = RankingMaterializer(store: store, source: sqlite, rankings: configuration.materializedRankings)
            try await body(gateway, store, sqlite, materializer)
        }
    }

    @Test("A cold page starts its live query before the snapshot read ends, and equals the sequential page")
    func liveQueryStartsBeforeTheSnapshotReadEnds() async throws {
        try await Self.withCorpus(documents: 400) { gateway, store, sqlite, materializer in
            _ = try await materializer.materialize(.init(ranking: "featured", query: "curry"), id: UUID().uuidString, ttlSeconds: nil, requestedAt: Date())

            let recorder = Recorder()
            let delay = Duration.milliseconds(200)
            let cold = Self.service(
                gateway, store: DelayingStore(base: store, delay: delay, recorder: recorder),
                source: DelayingSource(base: sqlite, delay: delay, recorder: recorder), cold: true)
            let now = Date()
            let parameters = SearchParameters(query: "curry", perPage: 10, session: "s1")
            var page = try await cold.page(parameters, now: now)
            let events = recorder.all
            let snapshotRead = events.filter { $0.what.hasPrefix("redis") }
            let live = events.filter { $0.what.hasPrefix("live") }
            // One round trip reads the pointer and the version it names.
            try #require(snapshotRead.map(\.what) == ["redis current"], "\(events)")
            let readEnd = try #require(snapshotRead.map(\.end).max())
            let liveStart = try #require(live.map(\.start).min())
            #expect(liveStart < readEnd, "the live query started after the snapshot read ended: \(events)")
            #expect(live.contains { $0.what.hasPrefix("live prefix") }, "\(events)")
            // The snapshot read and the live query overlapped.
            let firstLive = try #require(live.min { $0.start < $1.start })
            #expect(firstLive.start < snapshotRead[0].end && firstLive.end > snapshotRead[0].start, "\(events)")

            // The same page the sequential path gives: B read first, then one live query.
            let warmStore = DelayingStore(base: store, delay: .zero, recorder: Recorder())
            let sequential = Self.service(gateway, store: warmStore, source: sqlite, cold: false)
            _ = try await sequential.snapshots.current(ranking: "featured", query: "curry")
            var expected = try await sequential.page(parameters, now: now)
            try #require(page.interleaving.snapshot != nil, "not interleaved: \(page)")
            page.impressionID = nil
            expected.impressionID = nil
            #expect(page == expected)
        }
    }

    @Test("A broad query's cold page leaves room for every placed document in its prefix: one range of A, however B crowds it, and the sequential page")
    func aBroadQuerysColdPageAsksForOneRange() async throws {
        try await Self.withCorpus(documents: 400) { gateway, store, sqlite, materializer in
            // Five words: each statement of it pays for five lists, whatever rows it returns. Its
            // matches are few, and B, ranked by popularity among them, holds most of them.
            let query = "curry rice onion carrot salt"
            #expect(FTSMatchExpression.isBroad(query))
            _ = try await materializer.materialize(.init(ranking: "featured", query: query), id: UUID().uuidString, ttlSeconds: nil, requestedAt: Date())
            let version = try #require(try await store.currentVersion(ranking: "featured", query: query))
            let snapshot = try #require(try await store.storedSnapshot(ranking: "featured", query: query, version: version)).snapshot
            let matches = try await sqlite.search(SearchRequest(query: query, size: 0)).total
            // B's documents are A's matches too, and at least half of them: they crowd A's first ranks.
            try #require(snapshot.documents.count >= 10 && 2 * snapshot.documents.count >= matches, "\(snapshot.documents.count) of \(matches)")

            let recording = RecordingSource(base: sqlite)
            let cold = Self.service(gateway, store: store, source: recording, cold: true)
            for session in ["b1", "b2", "b3", "b4"] {
                recording.requests.withLock { $0.removeAll() }
                let now = Date()
                let parameters = SearchParameters(query: query, perPage: 10, session: session)
                var page = try await cold.page(parameters, now: now)
                let ranges = recording.requests.withLock { $0 }.filter { $0.size > 0 }
                #expect(ranges.count == 1 && ranges[0].excluding.isEmpty, "session \(session): \(ranges)")
                let sequential = Self.service(gateway, store: store, source: sqlite, cold: false)
                _ = try await sequential.snapshots.current(ranking: "featured", query: query)
                var expected = try await sequential.page(parameters, now: now)
                try #require(page.interleaving.snapshot == version)
                page.impressionID = nil
                expected.impressionID = nil
                #expect(page == expected, "session \(session)")
            }
        }
    }

    @Test("A cold page takes A's total from its prefix while the corpus is the one its snapshot was ranked in, and counts once it changed")
    func aSnapshotOfTheCurrentGenerationSavesTheCount() async throws {
        try await Self.withCorpus(documents: 400) { gateway, store, sqlite, materializer in
            _ = try await materializer.materialize(.init(ranking: "featured", query: "curry"), id: UUID().uuidString, ttlSeconds: nil, requestedAt: Date())
            let version = try #require(try await store.currentVersion(ranking: "featured", query: "curry"))
            let snapshot = try #require(try await store.storedSnapshot(ranking: "featured", query: "curry", version: version)).snapshot
            #expect(snapshot.matchGeneration != nil)

            let recorder = Recorder()
            let cold = Self.service(
                gateway, store: DelayingStore(base: store, delay: .zero, recorder: Recorder()),
                source: DelayingSource(base: sqlite, delay: .zero, recorder: recorder), cold: true)
            let parameters = SearchParameters(query: "curry", perPage: 10, session: "g1")
            func coldEqualsSequential(_ label: Comment) async throws -> SearchPage {
                let now = Date()
                var page = try await cold.page(parameters, now: now)
                let sequential = Self.service(gateway, store: store, source: sqlite, cold: false)
                _ = try await sequential.snapshots.current(ranking: "featured", query: "curry")
                var expected = try await sequential.page(parameters, now: now)
                try #require(page.interleaving.snapshot == version, label)
                page.impressionID = nil
                expected.impressionID = nil
                #expect(page == expected, label)
                return page
            }
            let first = try await coldEqualsSequential("in the snapshot's generation")
            #expect(first.total != nil)
            #expect(recorder.all.contains { $0.what.hasPrefix("live prefix") }, "\(recorder.all)")
            #expect(!recorder.all.contains { $0.what.hasPrefix("live count") }, "\(recorder.all)")

            // The first placed document stops matching. A without B is as long as before, but A's
            // plain total less the placed documents would now be one short.
            try await CorpusWriter.add([CorpusRecipe(id: snapshot.documents[0].id, title: "Plain bread")], path: sqlite.path)
            recorder.reset()
            let second = try await coldEqualsSequential("after the corpus changed")
            #expect(second.total == first.total)
            #expect(recorder.all.contains { $0.what.hasPrefix("live count") }, "\(recorder.all)")
        }
    }

    /// The real source, asked every question with the excluded ids counted out (the warm path
    /// without subtracting the snapshot's placed documents).
    struct ExactCountingSource: SearchSource {
        let base: any SearchSource

        func search(_ request: SearchRequest) async throws -> SearchResult {
            var exact = request
            exact.countsExcluded = true
            return try await base.search(exact)
        }
    }

    /// The real source, each request recorded (and each read of positions counted).
    final class RecordingSource: SearchSource {
        let base: any SearchSource
        let requests = Mutex<[SearchRequest]>([])
        let positionReads = Atomic<Int>(0)
        init(base: any SearchSource) { self.base = base }

        func search(_ request: SearchRequest) async throws -> SearchResult {
            requests.withLock { $0.append(request) }
            return try await base.search(request)
        }

        func relevancePositions(of ids: [String], query: String) async throws -> RankPositions? {
            positionReads.add(1, ordering: .relaxed)
            return try await base.relevancePositions(of: ids, query: query)
        }
    }

    @Test("A warm page leaves B out of A by where B's documents stand in A, read once per snapshot; while the corpus changes it excludes them in the query, and reads the positions again once it has settled")
    func aWarmPageLeavesBOutByItsPositionsInA() async throws {
        try await Self.withCorpus(documents: 400) { gateway, store, sqlite, materializer in
            _ = try await materializer.materialize(.init(ranking: "featured", query: "curry"), id: UUID().uuidString, ttlSeconds: nil, requestedAt: Date())
            let version = try #require(try await store.currentVersion(ranking: "featured", query: "curry"))
            let snapshot = try #require(try await store.storedSnapshot(ranking: "featured", query: "curry", version: version)).snapshot

            let recording = RecordingSource(base: sqlite)
            let byPositions = Self.service(gateway, store: store, source: recording, cold: false, positions: true)
            let excluding = Self.service(gateway, store: store, source: sqlite, cold: false)
            /// Pages 1 to 3 of one session on both services, equal; what the positions side asked.
            func pagesAreEqual(_ label: Comment) async throws -> [SearchRequest] {
                for service in [byPositions, excluding] { _ = try await service.snapshots.current(ranking: "featured", query: "curry") }
                recording.requests.withLock { $0.removeAll() }
                for page in 1...3 {
                    let now = Date()
                    let parameters = SearchParameters(query: "curry", perPage: 10, page: page, session: "p1")
                    var got = try await byPositions.page(parameters, now: now)
                    var expected = try await excluding.page(parameters, now: now)
                    try #require(got.interleaving.snapshot == version, label)
                    got.impressionID = nil
                    expected.impressionID = nil
                    got.nextCursor = nil
                    expected.nextCursor = nil
                    #expect(got == expected, "page \(page), \(label)")
                }
                return recording.requests.withLock { $0 }
            }
            let settled = try await pagesAreEqual("in the snapshot's generation")
            #expect(recording.positionReads.load(ordering: .relaxed) == 1)
            #expect(settled.count == 3 && settled.allSatisfy { $0.excluding.isEmpty }, "\(settled)")

            // The corpus changes: the first page finds the positions stale and excludes B, as do
            // the pages while the generation holds once; then the positions are read again.
            try await CorpusWriter.add([CorpusRecipe(id: snapshot.documents[0].id, title: "Plain bread")], path: sqlite.path)
            let changed = try await pagesAreEqual("after the corpus changed")
            // (Their totals are counted without B too: the snapshot's generation is gone.)
            #expect(changed.filter { !$0.excluding.isEmpty && $0.size > 0 }.count == 2, "\(changed)")
            #expect(recording.positionReads.load(ordering: .relaxed) == 2)
            let again = try await pagesAreEqual("once the corpus settled")
            #expect(again.allSatisfy { $0.excluding.isEmpty }, "\(again)")
            #expect(recording.positionReads.load(ordering: .relaxed) == 2)
        }
    }

    @Test("A warm page counts every match less the placed documents while the corpus is the one its snapshot was ranked in, and counts them out once it changed")
    func aWarmPageSubtractsThePlacedDocumentsOfItsGeneration() async throws {
        try await Self.withCorpus(documents: 400) { gateway, store, sqlite, materializer in
            _ = try await materializer.materialize(.init(ranking: "featured", query: "curry"), id: UUID().uuidString, ttlSeconds: nil, requestedAt: Date())
            let version = try #require(try await store.currentVersion(ranking: "featured", query: "curry"))
            let snapshot = try #require(try await store.storedSnapshot(ranking: "featured", query: "curry", version: version)).snapshot
            #expect(snapshot.matchGeneration != nil)

            let recording = RecordingSource(base: sqlite)
            let exact = ExactCountingSource(base: sqlite)
            let warm = Self.service(gateway, store: store, source: recording, cold: false)
            let counted = Self.service(gateway, store: store, source: exact, cold: false)
            func warmEqualsCounted(_ label: Comment) async throws -> SearchPage {
                for service in [warm, counted] { _ = try await service.snapshots.current(ranking: "featured", query: "curry") }
                recording.requests.withLock { $0.removeAll() }
                let now = Date()
                let parameters = SearchParameters(query: "curry", perPage: 10, session: "w1")
                var page = try await warm.page(parameters, now: now)
                var expected = try await counted.page(parameters, now: now)
                try #require(page.interleaving.snapshot == version, label)
                page.impressionID = nil
                expected.impressionID = nil
                #expect(page == expected, label)
                return page
            }
            let first = try await warmEqualsCounted("in the snapshot's generation")
            #expect(first.total != nil)
            let asked = recording.requests.withLock { $0 }
            #expect(asked.count == 1 && asked.allSatisfy { !$0.countsExcluded && !$0.excluding.isEmpty }, "\(asked)")

            // The first placed document stops matching: A's plain total less the placed documents
            // would now be one short, so the page counts them out.
            try await CorpusWriter.add([CorpusRecipe(id: snapshot.documents[0].id, title: "Plain bread")], path: sqlite.path)
            let second = try await warmEqualsCounted("after the corpus changed")
            #expect(second.total == first.total)
            let again = recording.requests.withLock { $0 }
            #expect(again.contains { $0.countsExcluded && $0.size == 0 }, "no count with the exclusion: \(again)")
        }
    }

    @Test("An HTTP ranking service that sends match_generation saves the count the same way, and one that stops sending it is counted")
    func anHTTPServicesGenerationSavesTheCount() async throws {
        try await Self.withCorpus(documents: 400) { gateway, store, sqlite, materializer in
            // A ranking service of a team's own, answering from the corpus through the contract.
            let vouches = Atomic<Bool>(true)
            let router = Router()
            router.post("/rank") { request, _ -> Response in
                let body = try await request.body.collect(upTo: 1 << 20)
                let wanted = try JSONDecoder().decode(RankingServiceContract.Request.self, from: Data(body.readableBytesView))
                let result = try await sqlite.search(SearchRequest(
                    query: wanted.query, excluding: wanted.excluding, from: wanted.from, size: wanted.size,
                    profile: try #require(RankingProfile(rawValue: wanted.profile))))
                var answer: [String: JSONValue] = [
                    "total": .number(Double(result.total)),
                    "hits": .array(result.hits.map { .object(["id": .string($0.id), "score": .number($0.score), "fields": .object($0.fields)]) }),
                ]
                if vouches.load(ordering: .relaxed), let generation = result.matchGeneration { answer["match_generation"] = .string(generation) }
                var writer = JSONWriter()
                try writer.writeObject(answer)
                return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: writer.bytes)))
            }
            try await Application(router: router).test(.live) { client in
                let http = HTTPRankingSource(url: "http://127.0.0.1:\(try #require(client.port))/rank")
                let throughHTTP = RankingMaterializer(store: store, source: http, rankings: materializer.rankings)
                _ = try await throughHTTP.materialize(.init(ranking: "featured", query: "curry"), id: UUID().uuidString, ttlSeconds: nil, requestedAt: Date())
                let version = try #require(try await store.currentVersion(ranking: "featured", query: "curry"))
                let snapshot = try #require(try await store.storedSnapshot(ranking: "featured", query: "curry", version: version)).snapshot
                let generation = try #require(snapshot.matchGeneration, "the worker did not keep the service's generation")
                #expect(generation == (try await sqlite.search(SearchRequest(query: "curry", size: 1))).matchGeneration)

                let recorder = Recorder()
                let cold = Self.service(
                    gateway, store: DelayingStore(base: store, delay: .zero, recorder: Recorder()),
                    source: DelayingSource(base: http, delay: .zero, recorder: recorder), cold: true)
                let sequential = Self.service(gateway, store: store, source: http, cold: false)
                _ = try await sequential.snapshots.current(ranking: "featured", query: "curry")
                for (session, vouching) in [("h1", true), ("h2", false)] {
                    vouches.store(vouching, ordering: .relaxed)
                    recorder.reset()
                    let now = Date()
                    let parameters = SearchParameters(query: "curry", perPage: 10, session: session)
                    var page = try await cold.page(parameters, now: now)
                    var expected = try await sequential.page(parameters, now: now)
                    try #require(page.interleaving.snapshot == version)
                    page.impressionID = nil
                    expected.impressionID = nil
                    #expect(page == expected, "vouching: \(vouching)")
                    #expect(recorder.all.contains { $0.what.hasPrefix("live prefix") }, "\(recorder.all)")
                    #expect(recorder.all.contains { $0.what.hasPrefix("live count") } == !vouching, "vouching: \(vouching), \(recorder.all)")
                }
            }
        }
    }

    @Test("Past its pointer's TTL a reader asks Redis once, which leaves out a version the near-cache holds")
    func aNearCachedVersionIsNotSentAgain() async throws {
        try await Self.withCorpus(documents: 200) { _, store, _, materializer in
            let requestedAt = Date()
            _ = try await materializer.materialize(.init(ranking: "featured", query: "soup"), id: "first", ttlSeconds: nil, requestedAt: requestedAt)

            let recording = OutcomeRecordingStore(base: store)
            let reader = SnapshotReader(store: recording, nearCacheBytes: 64 << 20, pointerTTL: .zero)
            let first = try #require(try await reader.current(ranking: "featured", query: "soup"))
            let again = try await reader.current(ranking: "featured", query: "soup")
            #expect(again == first)
            _ = try await materializer.materialize(
                .init(ranking: "featured", query: "soup"), id: "second", ttlSeconds: nil, requestedAt: requestedAt + 1)
            let refreshed = try #require(try await reader.current(ranking: "featured", query: "soup"))
            #expect(refreshed.version == RankingSnapshot.version(for: requestedAt + 1))
            #expect(try await reader.current(ranking: "featured", query: "nothing stored") == nil)
            #expect(recording.outcomes.withLock { $0 } == ["read", "held", "read", "none"])

            // Without a near-cache there is nothing to leave out.
            let uncached = OutcomeRecordingStore(base: store)
            let cold = SnapshotReader(store: uncached, nearCacheBytes: 0, pointerTTL: .zero)
            for _ in 0..<2 { #expect(try await cold.current(ranking: "featured", query: "soup") == refreshed) }
            #expect(uncached.outcomes.withLock { $0 } == ["read", "read"])
        }
    }

    @Test("Over many sessions and their pages, cold pages equal the sequential ones, also when the snapshot outgrows the over-fetch")
    func coldPagesEqualSequentialPages() async throws {
        try await Self.withCorpus(documents: 600) { gateway, store, sqlite, materializer in
            let queries = ["curry", "pasta", "cake", "rice", "soup", "egg", "zzqx nothing"]
            // The configured size is 50: "rice" and "egg" get snapshots larger than the
            // over-fetch covers, so their prefixes can come up short.
            for query in queries {
                let size = ["rice", "egg"].contains(query) ? 150 : nil
                _ = try await materializer.materialize(
                    .init(ranking: "featured", query: query, size: size), id: UUID().uuidString, ttlSeconds: nil, requestedAt: Date())
            }
            let recorder = Recorder()
            let cold = Self.service(
                gateway, store: DelayingStore(base: store, delay: .zero, recorder: Recorder()),
                source: DelayingSource(base: sqlite, delay: .zero, recorder: recorder), cold: true)
            let sequential = Self.service(gateway, store: store, source: sqlite, cold: false)
            for query in queries { _ = try await sequential.snapshots.current(ranking: "featured", query: query) }

            var generator = SeededGenerator(seed: 11)
            var pages = 0
            for index in 0..<120 {
                let query = queries[index % queries.count]
                let perPage = [1, 3, 7, 10, 20, 33, 50][Int.random(in: 0..<7, using: &generator)]
                let session = "c\(Int.random(in: 0..<1_000, using: &generator))"
                let now = Date()
                var parameters = SearchParameters(query: query, perPage: perPage, session: session)
                for _ in 0..<6 {
                    var coldPage = try await cold.page(parameters, now: now)
                    var sequentialPage = try await sequential.page(parameters, now: now)
                    coldPage.impressionID = nil
                    sequentialPage.impressionID = nil
                    #expect(coldPage == sequentialPage, "session \(session) \(query) per_page \(perPage) page \(coldPage.page)")
                    pages += 1
                    guard let next = coldPage.nextCursor else { break }
                    parameters.cursor = next
                }
            }
            let events = recorder.all.map(\.what)
            let prefixes = events.filter { $0.hasPrefix("live prefix") }.count
            let shortFollowUps = events.filter { $0.hasPrefix("live range") && !$0.hasSuffix("+0") }.count
            #expect(pages > 300, "only \(pages) pages compared")
            #expect(prefixes > pages / 2, "only \(prefixes) of \(pages) cold pages took the parallel path")
            #expect(shortFollowUps > 0, "no page needed the rest after a short over-fetch: \(events.prefix(20))")
        }
    }
}
