import BraidContracts
import BraidCore
import BraidPrecompute
import BraidRedis
import BraidSources
import BraidTestSupport
import BraidWorker
import Foundation
import Testing

/// The request processor on its own, without Kafka: message bytes in, effect in (the real)
/// Redis and a classified outcome out.
@Suite("Request processor")
struct RequestProcessorTests {
    /// A processor over a freshly seeded corpus and a key prefix of its own.
    static func withProcessor(
        redisURL: String? = nil, now: @escaping @Sendable () -> Date = Date.init,
        _ body: @Sendable (RequestProcessor, PrecomputeStore) async throws -> Void
    ) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("braid-processor-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        _ = try await CorpusWriter.seed(CorpusGenerator(seed: 11, documents: 300, users: 10), path: path)
        let source = SQLiteSearchSource(path: path)
        let provider = SQLiteComponentProvider(path: path)
        defer { Task { try? await source.shutdown(); try? await provider.shutdown() } }
        try await withRedisClient(redisURL ?? TestEnvironment.redisURL(), waitForConnection: redisURL == nil) { redis in
            let store = PrecomputeStore(redis: redis, keys: CacheKeys(prefix: TestEnvironment.uniqueName("braid")))
            let processor = RequestProcessor(
                rankings: RankingMaterializer(
                    store: store, source: source,
                    rankings: ["featured": .init(profile: .popularityBoosted, size: 20, ttlSeconds: 600, graceSeconds: 60)]),
                components: ComponentMaterializer(
                    store: store, provider: provider, feeds: ["home": .init(ttlSecondsByType: [.carousel: 600])], storedItems: 8),
                now: now)
            try await body(processor, store)
        }
    }

    static func message(_ request: PrecomputeRequest) -> [UInt8] { Array(request.encoded()) }

    @Test(.integration) func materializesRankingsAndComponentsAndAcknowledgesReplaysWithoutWork() async throws {
        try await Self.withProcessor { processor, store in
            let ranking = PrecomputeRequest(body: .ranking(.init(ranking: "featured", query: "chicken")))
            let (kind, outcome) = try await processor.process(Self.message(ranking))
            #expect(kind == "ranking")
            guard case .written(let documents) = outcome else { Issue.record("not written: \(outcome)"); return }
            let stored = try #require(try await store.currentSnapshot(ranking: "featured", query: "chicken"))
            #expect(stored.documents.count == documents && documents > 0)
            // At-least-once delivery replays requests: the same one again changes nothing.
            #expect(try await processor.process(Self.message(ranking)).outcome == .stale)

            let component = PrecomputeRequest(body: .component(.init(feed: "home", type: .carousel, scope: ComponentScope(segment: "all"))))
            let (componentKind, componentOutcome) = try await processor.process(Self.message(component))
            #expect(componentKind == "component")
            #expect(componentOutcome == .written(documents: 8))
        }
    }

    @Test(.integration, arguments: [
        (Array("not json".utf8), "invalid request"),
        (Array(#"{"schema":"braid.request/v1","id":"x","kind":"ranking"}"#.utf8), "invalid request"),
        (RequestProcessorTests.message(PrecomputeRequest(body: .ranking(.init(ranking: "nope", query: "x")))), "unknown ranking 'nope'"),
        (RequestProcessorTests.message(PrecomputeRequest(body: .component(.init(feed: "nope", type: .carousel, scope: ComponentScope(segment: "all"))))), "unknown feed 'nope'"),
    ])
    func invalidOrUnknownRequestsArePermanentFailures(value: [UInt8], reason: String) async throws {
        try await Self.withProcessor { processor, _ in
            let failure = await #expect(throws: ProcessingFailure.self) { try await processor.process(value) }
            guard case .permanent(let text)? = failure else { Issue.record("not permanent: \(String(describing: failure))"); return }
            #expect(text.contains(reason), "\(text)")
        }
    }

    @Test func redisUnreachableIsATransientFailure() async throws {
        let closedPort = try FreePort.find()
        try await Self.withProcessor(redisURL: "redis://127.0.0.1:\(closedPort)") { processor, _ in
            let request = PrecomputeRequest(body: .ranking(.init(ranking: "featured", query: "chicken")))
            let failure = await #expect(throws: ProcessingFailure.self) { try await processor.process(Self.message(request)) }
            guard case .transient? = failure else { Issue.record("not transient: \(String(describing: failure))"); return }
        }
    }

    /// A request dated in the future would store a version every later request is older than,
    /// freezing the ranking or component until that date: beyond the clock skew tolerance it is
    /// a permanent failure (dead-lettered with the reason) and writes nothing; within it, it is
    /// materialized.
    @Test(.integration) func aRequestDatedBeyondTheClockSkewToleranceIsPermanentAndWritesNothing() async throws {
        let now = Date()
        try await Self.withProcessor(now: { now }) { processor, store in
            let farFuture = Date(timeIntervalSince1970: 253_402_300_799)
            let justBeyond = now.addingTimeInterval(Double(ClockSkew.toleranceSeconds) + 5)
            let scope = ComponentScope(segment: "all")
            for requestedAt in [farFuture, justBeyond] {
                let ranking = PrecomputeRequest(body: .ranking(.init(ranking: "featured", query: "chicken")), ttlSeconds: 2_592_000, requestedAt: requestedAt)
                let component = PrecomputeRequest(body: .component(.init(feed: "home", type: .carousel, scope: scope)), requestedAt: requestedAt)
                for request in [ranking, component] {
                    let failure = await #expect(throws: ProcessingFailure.self) { try await processor.process(Self.message(request)) }
                    guard case .permanent(let reason)? = failure else { Issue.record("not permanent: \(String(describing: failure))"); continue }
                    #expect(reason.contains("ahead of this worker's clock"), "\(reason)")
                }
            }
            #expect(try await store.currentVersion(ranking: "featured", query: "chicken") == nil)
            #expect(try await store.component(feed: "home", type: .carousel, scope: scope) == nil)

            // Within the tolerance (a producer a little ahead): materialized as usual.
            let slightlyAhead = now.addingTimeInterval(Double(ClockSkew.toleranceSeconds) - 5)
            let ranking = PrecomputeRequest(body: .ranking(.init(ranking: "featured", query: "chicken")), requestedAt: slightlyAhead)
            guard case .written = try await processor.process(Self.message(ranking)).outcome else {
                Issue.record("a request within the tolerance was not written")
                return
            }
            #expect(try await store.currentVersion(ranking: "featured", query: "chicken") == RankingSnapshot.version(for: slightlyAhead))
        }
    }
}
