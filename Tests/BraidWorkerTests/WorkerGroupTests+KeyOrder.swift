import BraidContracts
import BraidCore
import BraidKafka
import BraidPrecompute
import BraidRedis
import BraidTestSupport
import Foundation
import Synchronization
import Testing

/// Key-ordered concurrency inside one partition, against the real broker and Redis: 50 keys
/// × 200 versions published randomly interleaved into ONE partition, materialized by `braid worker`
/// through an HTTP ranking source that answers after a random 0–20 ms. Redis' own keyspace
/// notifications record the order in which snapshot versions are written.
extension WorkerGroupTests {
    static let orderKeys = 50
    static let orderVersions = 200

    @Test func eachKeysVersionsAreWrittenInOrderWhileKeysOfOnePartitionRunConcurrently() async throws {
        try await KeyOrderRun.with { run in
            let worker = try await run.fixture.startWorker("order", environment: run.workerEnvironment())
            try await run.waitUntilNewestEverywhere()
            #expect(await worker.stop(grace: .seconds(30)).flatMap(ChildProcess.exitCode) == 0)

            try run.expectEveryVersionWrittenOnceInOrder()
            // Per-key order must not have been bought with partition order: keys overlapped.
            #expect(run.source.maxConcurrentRequests >= 4, "the source saw at most \(run.source.maxConcurrentRequests) requests at once")
        }
    }

    /// The worker is SIGKILLed mid-run, while keys finish out of order (so finished messages
    /// lie above unfinished ones), and a second worker takes the partition over: it must
    /// redeliver from the lowest unfinished offset, so no version is skipped.
    @Test func aWorkerKilledWhileCompletionsAreOutOfOrderLosesNothing() async throws {
        try await KeyOrderRun.with { run in
            let first = try await run.fixture.startWorker("order-killed", environment: run.workerEnvironment())
            let total = Self.orderKeys * Self.orderVersions
            // Killed once 2/5 are written and the writes show a gap (a finished request above
            // an unfinished one): then finished work lies above the commit and must come again.
            // Without the gap the kill could land when the worker had finished and committed all
            // it had fetched (it fetches about 4,096 of these at a time).
            let deadline = ContinuousClock.now + .seconds(120)
            while true {
                let state = try run.completion()
                if state.written >= total * 2 / 5, state.firstUnwritten < state.highestWritten { break }
                guard ContinuousClock.now < deadline, !first.hasExited else {
                    Issue.record("the first worker wrote \(state.written) versions without a gap and stopped")
                    return
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            first.signal(SIGKILL)  // no commit, no LeaveGroup
            let writtenBeforeKill = try run.versionWrites()
            // Where the kill left the partition, for the message of a failing expectation.
            try await Task.sleep(for: .milliseconds(300))  // the write log catches up
            let committed = try await KafkaAdmin(brokers: run.fixture.brokers).lag(group: run.fixture.group, topic: run.fixture.requestsTopic).first?.committed
            let atKill = try run.completion()
            let killState = "committed \(committed.map(String.init) ?? "none"), first unwritten \(atKill.firstUnwritten), highest written \(atKill.highestWritten), \(atKill.written) written"
            let metricsPort = try FreePort.find()
            let second = try await run.fixture.startWorker(
                "order-takeover", environment: run.workerEnvironment(["BRAID_WORKER_METRICS_PORT": "\(metricsPort)"]))
            try await run.waitUntilNewestEverywhere()
            let redelivered = try await MetricsScrape.fetch(port: metricsPort)[#"braid_worker_processed_total{kind="ranking",outcome="stale"}"#] ?? 0
            #expect(await second.stop(grace: .seconds(30)).flatMap(ChildProcess.exitCode) == 0)

            try run.expectEveryVersionWrittenOnceInOrder()
            #expect(writtenBeforeKill < total, "the kill came before the end")
            // Finished but uncommitted work came again (and was acknowledged without a write):
            // the commit had stayed at the lowest unfinished offset.
            #expect(redelivered > 0, "the second worker got nothing the first had finished; at the kill: \(killState)")
        }
    }
}

/// One run of the key-order scenario: its fixture (one partition), the ranking source, the
/// write log, and the published requests.
struct KeyOrderRun: Sendable {
    let fixture: WorkerFixture
    let source: TinyHTTPServer
    let log: RedisWriteLog
    let store: PrecomputeStore
    /// Version prefix of each key's snapshots → the key's index.
    let keyOfPrefix: [String: Int]
    let versions: [[Int64]]

    static func query(_ key: Int) -> String { "key \(key)" }

    static func with(_ body: @Sendable (KeyOrderRun) async throws -> Void) async throws {
        let fixture = try await WorkerFixture(partitions: 1, documents: 50, users: 10)
        let answer = Data(#"{"total":3,"hits":[{"id":"r1","score":3},{"id":"r2","score":2},{"id":"r3","score":1}]}"#.utf8)
        let source = try await TinyHTTPServer.start { _ in
            .init(status: 200, body: answer, delay: .milliseconds(Int.random(in: 0...20)))
        }
        try await withRedisClient(fixture.redisURL) { redis in
            let store = PrecomputeStore(redis: redis, keys: CacheKeys(prefix: fixture.keyPrefix))
            let log = try await RedisWriteLog.start(redis: redis, url: fixture.redisURL)
            let keys = WorkerGroupTests.orderKeys
            var keyOfPrefix: [String: Int] = [:]
            for key in 0..<keys { keyOfPrefix[store.keys.ranking("featured", query: query(key)).versionPrefix] = key }
            let start = (Date().timeIntervalSince1970 * 1000).rounded(.down)
            // Every key's versions in increasing order, the keys randomly interleaved in one
            // partition: a key's next version is often only a few messages behind, well
            // within what runs concurrently, so a lane that did not hold per-key order would
            // let versions overtake each other.
            var generator = SeededGenerator(seed: 14)
            let order = (0..<keys).flatMap { Array(repeating: $0, count: WorkerGroupTests.orderVersions) }.shuffled(using: &generator)
            let requests = order.enumerated().map { position, key in
                PrecomputeRequest(
                    body: .ranking(.init(ranking: "featured", query: query(key), size: 3)),
                    requestedAt: Date(timeIntervalSince1970: (start + Double(position)) / 1000))
            }
            var versions = Array(repeating: [Int64](), count: keys)
            for (key, request) in zip(order, requests) {
                versions[key].append(RankingSnapshot.version(for: request.requestedAt))
            }
            var producerConfiguration = KafkaProducerConfiguration(brokers: fixture.brokers)
            producerConfiguration.clientID = "key-order-test"
            let producer = try KafkaProducer(configuration: producerConfiguration)
            let publisher = RequestPublisher(producer: producer, topic: fixture.requestsTopic)
            for request in requests { try await publisher.send(request) }
            await producer.shutdown()
            #expect(producer.deliveryCounts == KafkaDeliveryCounts(delivered: requests.count, failed: 0))

            let run = KeyOrderRun(fixture: fixture, source: source, log: log, store: store, keyOfPrefix: keyOfPrefix, versions: versions)
            do {
                try await body(run)
            } catch {
                try? await log.stop(redis: redis)
                try? await source.stop()
                throw error
            }
            try await log.stop(redis: redis)
            try await source.stop()
        }
    }

    func workerEnvironment(_ extra: [String: String] = [:]) -> [String: String] {
        [
            "BRAID_SEARCH_SOURCE": "http", "BRAID_SEARCH_HTTP_URL": source.baseURL + "/rank",
            "BRAID_WORKER_CONCURRENCY": "16", "BRAID_WORKER_ORDERING": "key",
        ].merging(extra) { $1 }
    }

    /// The versions written per key, in the order Redis executed the writes.
    func writtenVersions() throws -> [Int: [Int64]] {
        var written: [Int: [Int64]] = [:]
        for key in try log.keys() {
            guard let marker = key.range(of: ":v:", options: .backwards),
                let index = keyOfPrefix[String(key[..<marker.upperBound])], let version = Int64(key[marker.upperBound...])
            else { continue }
            written[index, default: []].append(version)
        }
        return written
    }

    /// The partition's completion as the write log shows it (a request's offset is its
    /// version minus the first version: they were published in version order).
    func completion() throws -> (written: Int, firstUnwritten: Int, highestWritten: Int) {
        let base = versions.compactMap(\.first).min() ?? 0
        let offsets = Set(try writtenVersions().values.joined().map { Int($0 - base) })
        let firstUnwritten = (0...offsets.count).first { !offsets.contains($0) } ?? offsets.count
        return (offsets.count, firstUnwritten, offsets.max() ?? -1)
    }

    func versionWrites() throws -> Int {
        try writtenVersions().values.reduce(0) { $0 + $1.count }
    }

    func waitUntilNewestEverywhere(within timeout: Duration = .seconds(180)) async throws {
        var behind = Array(versions.indices)
        try await eventually("every key has its newest version", within: timeout, every: .milliseconds(300)) {
            var still: [Int] = []
            for key in behind where try await store.currentVersion(ranking: "featured", query: Self.query(key)) != versions[key].last {
                still.append(key)
            }
            behind = still
            return behind.isEmpty
        }
    }

    /// Every version of every key was written, exactly once, in increasing order: nothing
    /// skipped, nothing overtaken (an overtaken older version would be acknowledged as stale
    /// and never written).
    func expectEveryVersionWrittenOnceInOrder() throws {
        let written = try writtenVersions()
        var wrongKeys: [Int] = []
        for key in versions.indices where written[key] != versions[key] { wrongKeys.append(key) }
        let firstWrong = wrongKeys.first.map { key in
            let got = written[key] ?? []
            let missing = Set(versions[key]).subtracting(got).count
            let descending = zip(got, got.dropFirst()).filter { $0 >= $1 }.count
            return "key \(key): \(got.count) writes, \(missing) versions missing, \(descending) out of order"
        }
        #expect(wrongKeys.isEmpty, "\(wrongKeys.count) keys not written exactly in version order; \(firstWrong ?? "")")
    }
}
