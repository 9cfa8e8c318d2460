import BraidContracts
import BraidCore
import BraidKafka
import BraidPrecompute
import BraidRedis
import BraidTestSupport
import Foundation
import Synchronization
import Testing

/// A ranking source that goes down and comes back, and a job that outlasts
/// `max.poll.interval.ms`, against `braid worker`, the real broker and Redis.
@Suite("worker outages end to end", .serialized, .integration)
struct WorkerOutageTests {
    final class Switch: Sendable {
        private let on = Atomic<Bool>(false)
        var isOn: Bool { on.load(ordering: .relaxed) }
        func set(_ value: Bool) { on.store(value, ordering: .relaxed) }
    }

    /// A local HTTP ranking source that answers 503 while `down`.
    final class FlakySource: Sendable {
        let down: Switch
        let server: TinyHTTPServer

        init(slowQuery: String? = nil, slowFor: Duration = .zero) async throws {
            let down = Switch()
            self.down = down
            let answer = Data(#"{"total":2,"hits":[{"id":"r1","score":2},{"id":"r2","score":1}]}"#.utf8)
            server = try await TinyHTTPServer.start { request in
                if down.isOn { return .init(status: 503, body: Data(#"{"error":"down"}"#.utf8)) }
                if let slowQuery, String(decoding: request.body, as: UTF8.self).contains("\"\(slowQuery)\"") {
                    return .init(status: 200, body: answer, delay: slowFor)
                }
                return .init(status: 200, body: answer, delay: .milliseconds(2))
            }
        }

        var url: String { server.baseURL + "/rank" }

        /// Requests for `query` (probes are "braid probe").
        func requests(for query: String) -> Int {
            server.requests.filter { String(decoding: $0.body, as: UTF8.self).contains("\"query\":\"\(query)\"") }.count
        }
    }

    static func requests(_ count: Int, prefix: String) -> [PrecomputeRequest] {
        (0..<count).map { PrecomputeRequest(body: .ranking(.init(ranking: "featured", query: "\(prefix) \($0)", size: 2))) }
    }

    static func publish(_ requests: [PrecomputeRequest], _ fixture: WorkerFixture) async throws {
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(brokers: fixture.brokers))
        let publisher = RequestPublisher(producer: producer, topic: fixture.requestsTopic)
        for request in requests { try await publisher.send(request) }
        await producer.shutdown()
        #expect(producer.deliveryCounts == KafkaDeliveryCounts(delivered: requests.count, failed: 0))
    }

    static func materialized(_ requests: [PrecomputeRequest], _ store: PrecomputeStore) async throws -> Int {
        var count = 0
        for request in requests where try await WorkerGroupTests.isMaterialized(request, in: store) { count += 1 }
        return count
    }

    static func deadLetterCount(_ fixture: WorkerFixture) async throws -> Int {
        try await TopicContents.count(fixture.deadLetterTopic, brokers: fixture.brokers)
    }

    /// The source answers 503 for 10 s while 600 requests wait: none may be dead-lettered
    /// (each has only 3 attempts 50 ms apart, which the backlog would burn through in a
    /// second), the worker pauses its partitions, `braid ops lag` shows the backlog, and once
    /// the source answers again everything is materialized.
    @Test func aSourceDownForTenSecondsPausesTheWorkerAndLosesNothing() async throws {
        let fixture = try await WorkerFixture(partitions: 3, documents: 50, users: 10)
        let source = try await FlakySource()
        let metricsPort = try FreePort.find()
        let worker = try await fixture.startWorker("outage", environment: [
            "BRAID_SEARCH_SOURCE": "http", "BRAID_SEARCH_HTTP_URL": source.url, "BRAID_WORKER_METRICS_PORT": "\(metricsPort)",
            "BRAID_WORKER_MAX_ATTEMPTS": "3", "BRAID_WORKER_RETRY_BACKOFF_MS": "50",
            "BRAID_WORKER_PROBE_BACKOFF_MS": "200", "BRAID_WORKER_PROBE_MAX_BACKOFF_MS": "1000",
        ])
        try await fixture.waitUntilAssigned("outage")
        try await withRedisClient(fixture.redisURL) { redis in
            let store = PrecomputeStore(redis: redis, keys: CacheKeys(prefix: fixture.keyPrefix))
            // Answering first: the worker is warm and working.
            let before = Self.requests(60, prefix: "before")
            try await Self.publish(before, fixture)
            try await eventually("the first requests materialized", within: .seconds(60)) {
                try await Self.materialized(before, store) == before.count
            }

            source.down.set(true)
            let downSince = ContinuousClock.now
            let backlog = Self.requests(600, prefix: "backlog")
            try await Self.publish(backlog, fixture)
            try await eventually("the worker paused its 3 partitions", within: .seconds(8)) {
                let metrics = try await MetricsScrape.fetch(port: metricsPort)
                return metrics[#"braid_worker_paused{dependency="search_source"}"#] == 1 && metrics["braid_worker_paused_partitions"] == 3
            }
            let lag = try BraidBinary.run(["ops", "lag"], environment: fixture.environment)
            #expect(lag.status == 0, "\(lag.stderr)")
            let totalLag = lag.stdout.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("total") }.flatMap { $0.split(separator: " ").last }
                .flatMap { Int($0) } ?? 0
            #expect(totalLag > 0, "braid ops lag shows the backlog while paused: \(lag.stdout)")
            try await Task.sleep(until: downSince + .seconds(10))
            let duringOutage = try await MetricsScrape.fetch(port: metricsPort)
            #expect(duringOutage.total("braid_worker_dead_lettered_total") == 0)
            #expect(try await Self.deadLetterCount(fixture) == 0, "dead letters while the source was down")
            let probesWhileDown = source.requests(for: "braid probe")
            #expect(probesWhileDown >= 2, "the worker probed the source while it was down (\(probesWhileDown) probes)")

            source.down.set(false)
            do {
                try await eventually("the backlog materialized after the source came back", within: .seconds(60)) {
                    try await Self.materialized(backlog, store) == backlog.count
                }
            } catch {
                // What the worker was doing: the end of its log and its metrics.
                let log = try fixture.log(of: "outage").split(separator: "\n").suffix(60).joined(separator: "\n")
                let metrics = try? await MetricsScrape.fetch(port: metricsPort)
                var missing: [String] = []
                for request in backlog where try await !WorkerGroupTests.isMaterialized(request, in: store) {
                    if case .ranking(let target) = request.body { missing.append(target.query) }
                }
                Issue.record("""
                    \(backlog.count - missing.count) of \(backlog.count) materialized (missing: \(missing.prefix(5))); \
                    \(source.requests(for: "braid probe")) probes; metrics: \
                    \(metrics.map { $0.samples.filter { $0.key.hasPrefix("braid_worker") } } ?? [:])
                    worker log:
                    \(log)
                    """)
                throw error
            }
            let after = try await MetricsScrape.fetch(port: metricsPort)
            #expect(after[#"braid_worker_paused{dependency="search_source"}"#] == 0)
            #expect(after["braid_worker_paused_partitions"] == 0)
            #expect(after.total("braid_worker_pauses_total") >= 1)
            #expect(after.total("braid_worker_dead_lettered_total") == 0)
        }
        #expect(await worker.stop(grace: .seconds(30)).flatMap(ChildProcess.exitCode) == 0)
        #expect(try await Self.deadLetterCount(fixture) == 0, "dead letters after the outage")
        try await source.server.stop()
    }

    /// One request takes 9 s, longer than the worker's `max.poll.interval.ms` (6 s): the
    /// poll thread keeps polling meanwhile, so the worker stays in the group, its partitions
    /// are never revoked, and nothing is processed twice.
    @Test func aJobLongerThanTheMaxPollIntervalKeepsTheWorkerInTheGroup() async throws {
        let fixture = try await WorkerFixture(partitions: 2, documents: 50, users: 10)
        let source = try await FlakySource(slowQuery: "slow job", slowFor: .seconds(9))
        let config = try TestEnvironment.runDirectory().appendingPathComponent("\(fixture.keyPrefix)-long-job.yaml")
        try Data("kafka:\n  properties:\n    max.poll.interval.ms: \"6000\"\nsearch:\n  timeout_ms: 20000\n".utf8).write(to: config)
        let metricsPort = try FreePort.find()
        let worker = try await fixture.startWorker("long-job", arguments: ["--config", config.path], environment: [
            "BRAID_SEARCH_SOURCE": "http", "BRAID_SEARCH_HTTP_URL": source.url, "BRAID_WORKER_METRICS_PORT": "\(metricsPort)",
        ])
        try await fixture.waitUntilAssigned("long-job")
        let slow = PrecomputeRequest(body: .ranking(.init(ranking: "featured", query: "slow job", size: 2)))
        let quick = Self.requests(20, prefix: "quick")
        try await Self.publish([slow] + quick, fixture)
        try await withRedisClient(fixture.redisURL) { redis in
            let store = PrecomputeStore(redis: redis, keys: CacheKeys(prefix: fixture.keyPrefix))
            try await eventually("the slow job and the quick ones materialized", within: .seconds(60)) {
                try await Self.materialized([slow] + quick, store) == quick.count + 1
            }
        }
        // A few seconds more: a member thrown out of the group would rejoin, get the
        // partitions back and process the uncommitted slow job again.
        try await Task.sleep(for: .seconds(3))
        let metrics = try await MetricsScrape.fetch(port: metricsPort)
        #expect(await worker.stop(grace: .seconds(30)).flatMap(ChildProcess.exitCode) == 0)
        let log = try fixture.log(of: "long-job")
        #expect(source.requests(for: "slow job") == 1, "the slow job was sent to the source more than once")
        #expect(metrics.total("braid_worker_processed_total") == Double(quick.count + 1), "requests processed more than once")
        #expect(!log.contains("maximum poll interval"), "librdkafka saw the poll interval exceeded")
        let assignments = log.split(separator: "\n").filter { $0.contains("partitions assigned") && $0.contains(fixture.requestsTopic + "[") }
        #expect(assignments.count == 1, "the worker was assigned \(assignments.count) times: it left the group")
        try await source.server.stop()
    }
}
