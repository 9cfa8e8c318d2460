import BraidCore
import BraidKafka
import BraidRedis
import BraidTestSupport
import BraidPrecompute
import BraidWorker
import Foundation
import Testing

/// `braid worker` processes in one consumer group, against the real broker and Redis.
@Suite("worker group end to end", .serialized, .integration)
struct WorkerGroupTests {
    /// 1,980 valid requests, each for its own cache key so its result is checkable alone.
    static func validRequests(at base: Date) -> [PrecomputeRequest] {
        // Whole milliseconds: the wire format carries milliseconds, versions are derived from them.
        let start = (base.timeIntervalSince1970 * 1000).rounded(.down)
        return (0..<1_980).map { i in
            let requestedAt = Date(timeIntervalSince1970: (start + Double(i)) / 1000)
            if i % 4 == 3 {
                let target = PrecomputeRequest.ComponentTarget(feed: "home", type: .recommendedRecipes, scope: ComponentScope(user: "u\(i)"))
                return PrecomputeRequest(body: .component(target), requestedAt: requestedAt)
            }
            let target = PrecomputeRequest.RankingTarget(ranking: i % 2 == 0 ? "featured" : "fresh", query: "curry \(i)", size: 20)
            return PrecomputeRequest(body: .ranking(target), requestedAt: requestedAt)
        }
    }

    /// 20 messages no worker can process: the schema's invalid examples plus hostile ones.
    static func invalidPayloads() throws -> [[UInt8]] {
        var payloads = try RepositoryPaths.jsonFiles(in: RepositoryPaths.schemas.appendingPathComponent("examples/invalid"))
            .map { Array(try Data(contentsOf: $0)) }
        payloads += [
            Array("not json at all".utf8), [], [0xff, 0xfe, 0x00, 0x01], Array("[1,2,3]".utf8),
            Array(("{\"schema\":\"braid.request/v1\",\"pad\":\"" + String(repeating: "x", count: 70_000) + "\"}").utf8),
            Array(#"{"schema":"braid.request/v1","id":"00000000-0000-4000-8000-000000000001","kind":"ranking","ranking":{"id":"no_such_ranking","query":"curry"},"requested_at":"2026-11-22T10:00:00Z"}"#.utf8),
            Array(#"{"schema":"braid.request/v1","id":"00000000-0000-4000-8000-000000000002","kind":"component","component":{"feed":"no_such_feed","type":"carousel","scope":{"user":"u1"}},"requested_at":"2026-11-22T10:00:00Z"}"#.utf8),
        ]
        payloads += (0..<(20 - payloads.count)).map { Array("{\"broken\": \($0)".utf8) }
        return payloads
    }

    /// On the redis-server, and on the Redis Cluster (the workers get `redis.cluster_nodes`).
    @Test(arguments: [FixtureRedis.standalone, .cluster])
    func everyValidRequestIsMaterializedAndEveryInvalidOneDeadLetteredDespiteACrash(redis: FixtureRedis) async throws {
        let fixture = try await WorkerFixture(redis: redis)
        let valid = Self.validRequests(at: Date())
        let invalid = try Self.invalidPayloads()
        #expect(invalid.count == 20)

        var producerConfiguration = KafkaProducerConfiguration(brokers: fixture.brokers)
        producerConfiguration.clientID = "worker-group-test"
        let producer = try KafkaProducer(configuration: producerConfiguration)
        let publisher = RequestPublisher(producer: producer, topic: fixture.requestsTopic)

        // Requests stream in for about 14 s while workers join, crash and leave. Joins are
        // spaced by more than a rebalance takes (~3 s here), as real deployments scale.
        var messages: [KafkaProducerMessage] = valid.map { publisher.message(for: $0) }
        for (index, payload) in invalid.enumerated() {
            messages.insert(KafkaProducerMessage(topic: fixture.requestsTopic, key: Array("bad-\(index)".utf8), value: payload), at: index * 97)
        }
        let stream = messages
        let publishing = Task {
            for batch in stride(from: 0, to: stream.count, by: 100) {
                for message in stream[batch..<min(batch + 100, stream.count)] { try await producer.send(message) }
                try await Task.sleep(for: .milliseconds(700))
            }
        }

        let first = try await fixture.startWorker("w1")
        try await Task.sleep(for: .seconds(4))
        let second = try await fixture.startWorker("w2")
        try await Task.sleep(for: .seconds(4))
        let third = try await fixture.startWorker("w3")
        try await Task.sleep(for: .seconds(4))
        second.signal(SIGKILL)  // no commit, no LeaveGroup: its partitions move after the session timeout
        try await Task.sleep(for: .seconds(3))
        let firstStatus = await first.stop(grace: .seconds(30))
        #expect(firstStatus.flatMap(ChildProcess.exitCode) == 0, "a worker stopped with SIGTERM exits 0")

        try await publishing.value
        await producer.shutdown()
        #expect(producer.deliveryCounts == KafkaDeliveryCounts(delivered: messages.count, failed: 0))

        // The survivor finishes everything.
        try await fixture.withRedis { (redis: RedisClient) async throws -> Void in
            let store = PrecomputeStore(redis: redis, keys: CacheKeys(prefix: fixture.keyPrefix))
            let deadline = ContinuousClock.now + .seconds(120)
            var missing = valid
            while !missing.isEmpty, ContinuousClock.now < deadline {
                var stillMissing: [PrecomputeRequest] = []
                for request in missing where try await !Self.isMaterialized(request, in: store) {
                    stillMissing.append(request)
                }
                missing = stillMissing
                if !missing.isEmpty { try await Task.sleep(for: .milliseconds(500)) }
            }
            let missingCount = missing.count
            #expect(missingCount == 0, "of \(valid.count) valid requests, these have no result in Redis")
        }
        let letters = try await Self.deadLetters(fixture, expecting: invalid.count)
        // Counts only: the messages themselves are megabytes of output. One letter per invalid
        // message; a second copy only of the same source message (a worker killed between
        // publishing a letter and writing its marker: at least once, as the README says).
        let sources = letters.map { String(decoding: $0.header(DeadLetterPublisher.Header.source) ?? [], as: UTF8.self) }
        let distinctSources = Set(sources).count
        #expect(distinctSources == invalid.count, "source messages in the dead-letter topic")
        #expect(letters.count - distinctSources <= 1, "\(letters.count - distinctSources) duplicate letters; one worker was killed once")
        let unexpected = Set(letters.map(\.value)).symmetricDifference(Set(invalid))
        let unexpectedCount = unexpected.count
        #expect(unexpectedCount == 0, "dead letters that are not, or invalid payloads that are not, in the dead-letter topic")
        #expect(letters.allSatisfy { ($0.header(DeadLetterPublisher.Header.reason) ?? []).isEmpty == false })

        let thirdStatus = await third.stop(grace: .seconds(30))
        #expect(thirdStatus.flatMap(ChildProcess.exitCode) == 0)
    }

    static func isMaterialized(_ request: PrecomputeRequest, in store: PrecomputeStore) async throws -> Bool {
        let version = RankingSnapshot.version(for: request.requestedAt)
        switch request.body {
        case .ranking(let target):
            return try await store.currentVersion(ranking: target.ranking, query: target.query) == version
        case .component(let target):
            return try await store.component(feed: target.feed, type: target.type, scope: target.scope)?.version == version
        }
    }

    /// The whole dead-letter topic. Waits up to 60 s for `expecting` letters to be stored,
    /// 3 s more so that extra (duplicate) letters would show, then reads them all back.
    static func deadLetters(_ fixture: WorkerFixture, expecting: Int) async throws -> [KafkaConsumerMessage] {
        let admin = try KafkaAdmin(brokers: fixture.brokers)
        func stored() async throws -> Int {
            try await admin.lag(group: TestEnvironment.uniqueName("count"), topic: fixture.deadLetterTopic)
                .reduce(0) { $0 + Int($1.highWatermark) }
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while try await stored() < expecting, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(250))
        }
        try await Task.sleep(for: .seconds(3))
        let total = try await stored()

        let consumer = try KafkaConsumer(configuration: KafkaConsumerConfiguration(
            brokers: fixture.brokers, groupID: TestEnvironment.uniqueName("dlq-reader"), topics: [fixture.deadLetterTopic]))
        let reader = Task {
            var letters: [KafkaConsumerMessage] = []
            for try await message in consumer.messages {
                letters.append(message)
                try consumer.storeOffset(message)
                if letters.count == total { break }
            }
            return letters
        }
        let timeout = Task {
            try await Task.sleep(for: .seconds(30))
            await consumer.close()
        }
        let letters = try await reader.value
        timeout.cancel()
        await consumer.close()
        return letters
    }
}
