import BraidContracts
import BraidCore
import BraidKafka
import BraidPrecompute
import BraidRedis
import BraidTestSupport
import BraidWorker
import Foundation
import Testing

/// `braid ops …` run as a person would, against the servers `make test` started.
@Suite("braid ops against the real broker and Redis", .integration)
struct OpsCommandTests {
    static func kafkaEnvironment(requests: String, deadLetters: String, events: String = TestEnvironment.uniqueName("events"))
        throws -> [String: String]
    {
        [
            "BRAID_KAFKA_BROKERS": try TestEnvironment.kafkaBrokers(), "BRAID_KAFKA_REQUESTS_TOPIC": requests,
            "BRAID_KAFKA_DEAD_LETTER_TOPIC": deadLetters, "BRAID_KAFKA_EVENTS_TOPIC": events,
            "BRAID_KAFKA_CONSUMER_GROUP": TestEnvironment.uniqueName("workers"), "BRAID_LOGGING_LEVEL": "warning",
            "BRAID_REDIS_URL": try TestEnvironment.redisURL(), "BRAID_REDIS_KEY_PREFIX": TestEnvironment.uniqueName("braid"),
        ]
    }

    @Test func topicsEnsureCreatesThenReportsExistingAndChecksPartitions() async throws {
        let (requests, dlq, events) = (TestEnvironment.uniqueName("requests"), TestEnvironment.uniqueName("dlq"), TestEnvironment.uniqueName("events"))
        let environment = try Self.kafkaEnvironment(requests: requests, deadLetters: dlq, events: events)

        let created = try BraidBinary.run(["ops", "topics", "ensure", "--partitions", "3"], environment: environment)
        #expect(created.status == 0, "\(created.stderr)")
        for topic in [requests, dlq, events] {
            #expect(created.stdout.contains("created \(topic): 3 partitions"), "\(created.stdout)")
        }
        let admin = try KafkaAdmin(brokers: try TestEnvironment.kafkaBrokers())
        for topic in [requests, dlq, events] {
            #expect(try await admin.partitionCount(of: topic) == 3)
        }

        let again = try BraidBinary.run(["ops", "topics", "ensure", "--partitions", "3"], environment: environment)
        #expect(again.status == 0, "\(again.stderr)")
        for topic in [requests, dlq, events] {
            #expect(again.stdout.contains("exists  \(topic): 3 partitions"), "\(again.stdout)")
        }
        #expect(!again.stdout.contains("created"))

        let different = try BraidBinary.run(["ops", "topics", "ensure", "--partitions", "4"], environment: environment)
        #expect(different.status == 0, "a different count only warns without --strict: \(different.stderr)")
        #expect(different.stdout.contains("exists  \(requests): 3 partitions (expected 4)"), "\(different.stdout)")
        #expect(different.stderr.contains("warning"))
        let strict = try BraidBinary.run(["ops", "topics", "ensure", "--partitions", "4", "--strict"], environment: environment)
        #expect(strict.status == 1, "\(strict.stdout) \(strict.stderr)")

        let usage = try BraidBinary.run(["ops", "topics", "ensure", "--partitions", "0"], environment: environment)
        #expect(usage.status == 2)
    }

    @Test func snapshotShowReportsTheCurrentVersionAndPurgeDeletesEveryKey() async throws {
        let redisURL = try TestEnvironment.redisURL()
        let prefix = TestEnvironment.uniqueName("braid")
        let keys = CacheKeys(prefix: prefix)
        let environment = ["BRAID_REDIS_URL": redisURL, "BRAID_REDIS_KEY_PREFIX": prefix, "BRAID_LOGGING_LEVEL": "warning"]
        let query = "  Curry   RICE "
        let normalized = QueryNormalizer.normalize(query)
        let created = Date().addingTimeInterval(-30)
        let old = Int64((created.timeIntervalSince1970 - 60) * 1000)
        let current = Int64(created.timeIntervalSince1970 * 1000)
        let documents = (1...15).map { RankingSnapshot.Document(id: "r\($0)", score: Double(20 - $0), fields: ["title": .string("Recipe \($0)")]) }
        let rankingKeys = keys.ranking("featured", query: query)

        try await withRedisClient(redisURL) { (redis: RedisClient) async throws -> Void in
            let store = PrecomputeStore(redis: redis, keys: keys)
            for version in [old, current] {
                let snapshot = RankingSnapshot(
                    ranking: "featured", query: normalized, version: version,
                    createdAt: Date(timeIntervalSince1970: Double(version) / 1000), requestID: "req-\(version)", documents: documents)
                #expect(try await store.publish(snapshot, ttlSeconds: 600, graceSeconds: 120) == .written)
            }
            _ = try await redis.set(rankingKeys.refreshMarker, to: "1", expiration: .seconds(60))
        }

        let shown = try BraidBinary.run(["ops", "snapshot", "show", "featured", query, "--documents", "3"], environment: environment)
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains("normalised: \(normalized)"), "\(shown.stdout)")
        #expect(shown.stdout.contains("current version:  \(current)"), "\(shown.stdout)")
        #expect(shown.stdout.contains("documents:        15"), "\(shown.stdout)")
        #expect(shown.stdout.contains("Recipe 3") && !shown.stdout.contains("Recipe 4"), "\(shown.stdout)")

        let json = try BraidBinary.run(["ops", "snapshot", "show", "featured", query, "--json"], environment: environment)
        #expect(json.status == 0, "\(json.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(object?["current_version"] as? Int64 == current)
        #expect(object?["stored_versions"] as? [Int64] == [old, current])
        #expect(object?["document_count"] as? Int == 15)
        #expect((object?["documents"] as? [Any])?.count == 10, "--documents defaults to 10")
        #expect(object?["refresh_marker"] as? Bool == true)
        let pointerTTL = object?["pointer_ttl_seconds"] as? Int ?? 0
        let versionTTL = object?["version_ttl_seconds"] as? Int ?? 0
        #expect(pointerTTL > 0 && pointerTTL <= 600, "pointer TTL \(pointerTTL)")
        #expect(versionTTL > 0 && versionTTL <= 600, "version TTL \(versionTTL)")
        let age = object?["age_seconds"] as? Double ?? 0
        #expect(age >= 29 && age < 120, "age \(age)")

        let refused = try BraidBinary.run(["ops", "snapshot", "purge", "featured", query], environment: environment)
        #expect(refused.status == 2, "purge needs --yes: \(refused.stdout)")
        #expect(refused.stderr.contains("--yes"))

        let purged = try BraidBinary.run(["ops", "snapshot", "purge", "featured", query, "--yes"], environment: environment)
        #expect(purged.status == 0, "\(purged.stderr)")
        for key in [rankingKeys.pointer, rankingKeys.version(old), rankingKeys.version(current), rankingKeys.refreshMarker] {
            #expect(purged.stdout.contains("deleted \(key)"), "\(purged.stdout)")
        }
        #expect(purged.stdout.contains("deleted 4 keys"), "\(purged.stdout)")
        let left = try await withRedisClient(redisURL) { (redis: RedisClient) async throws -> [String] in
            let reply = try await redis.send(["KEYS", .string("\(prefix):*")])
            guard case .array(let values?) = reply else { return ["unexpected reply \(reply)"] }
            return values.compactMap(\.string)
        }
        #expect(left.isEmpty, "keys left after purge: \(left)")

        let gone = try BraidBinary.run(["ops", "snapshot", "show", "featured", query], environment: environment)
        #expect(gone.status == 1, "no snapshot: exit 1")
        #expect(gone.stdout.contains("current version:  none"), "\(gone.stdout)")
    }

    /// A ranking and a component stored with a version dated in the future (as a request from a
    /// producer with a wrong clock left them) are found, then removed, and a request of today is
    /// written again; a current entry beside them is left alone.
    @Test func futureFindsAndRepairsEntriesDatedAheadOfTheClock() async throws {
        let redisURL = try TestEnvironment.redisURL()
        let prefix = TestEnvironment.uniqueName("braid")
        let keys = CacheKeys(prefix: prefix)
        let environment = ["BRAID_REDIS_URL": redisURL, "BRAID_REDIS_KEY_PREFIX": prefix, "BRAID_LOGGING_LEVEL": "warning"]
        let frozen: Int64 = 253_402_300_799_000
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let documents = [RankingSnapshot.Document(id: "r1", score: 1, fields: [:])]
        let scope = ComponentScope(user: "u1")
        try await withRedisClient(redisURL) { (redis: RedisClient) async throws -> Void in
            let store = PrecomputeStore(redis: redis, keys: keys)
            for (query, version) in [("curry", frozen), ("rice", now)] {
                let snapshot = RankingSnapshot(
                    ranking: "featured", query: query, version: version, createdAt: Date(), requestID: "r-\(query)", documents: documents)
                #expect(try await store.publish(snapshot, ttlSeconds: 600, graceSeconds: 60) == .written)
            }
            let content = ComponentContent(feed: "home", type: .carousel, scope: scope, items: [.string("x")], version: frozen, createdAt: Date())
            #expect(try await store.publish(content, ttlSeconds: 600) == .written)
        }
        let curry = keys.ranking("featured", query: "curry")
        let component = keys.component(feed: "home", type: .carousel, scope: scope)

        let found = try BraidBinary.run(["ops", "future"], environment: environment)
        #expect(found.status == 1, "entries found: exit 1. \(found.stdout) \(found.stderr)")
        #expect(found.stdout.contains("ranking  \(curry.pointer)  version \(frozen)"), "\(found.stdout)")
        #expect(found.stdout.contains("component  \(component)  version \(frozen)"), "\(found.stdout)")
        #expect(found.stdout.contains("2 entries dated more than 300 s ahead"), "\(found.stdout)")
        #expect(!found.stdout.contains(keys.ranking("featured", query: "rice").pointer), "a current entry is not listed")

        let unconfirmed = try BraidBinary.run(["ops", "future", "--repair"], environment: environment)
        #expect(unconfirmed.status == 2 && unconfirmed.stderr.contains("--yes"), "\(unconfirmed.stderr)")

        let repaired = try BraidBinary.run(["ops", "future", "--repair", "--yes"], environment: environment)
        #expect(repaired.status == 0, "\(repaired.stderr)")
        for key in [curry.pointer, curry.version(frozen), component] {
            #expect(repaired.stdout.contains("deleted \(key)"), "\(repaired.stdout)")
        }
        // Run as with a file shared with gateways in jwt mode, without the JWT key: a tool
        // verifies no token, so it does not need one.
        var shared = environment
        shared["BRAID_IDENTITY_MODE"] = "jwt"
        let again = try BraidBinary.run(["ops", "future"], environment: shared)
        #expect(again.status == 0 && again.stdout.contains("0 entries"), "\(again.stdout) \(again.stderr)")

        try await withRedisClient(redisURL) { (redis: RedisClient) async throws -> Void in
            let store = PrecomputeStore(redis: redis, keys: keys)
            #expect(try await store.currentVersion(ranking: "featured", query: "rice") == now, "the current entry is untouched")
            let today = RankingSnapshot(ranking: "featured", query: "curry", version: now + 1, createdAt: Date(), requestID: "today", documents: documents)
            #expect(try await store.publish(today, ttlSeconds: 600, graceSeconds: 60) == .written, "a request of today is written again")
        }
    }

    /// An expired walk record is deleted by `braid ops retention`, a live one is kept.
    @Test func retentionDeletesExpiredWalkRecordsNow() async throws {
        let redisURL = try TestEnvironment.redisURL()
        let prefix = TestEnvironment.uniqueName("braid")
        let keys = CacheKeys(prefix: prefix)
        let environment = ["BRAID_REDIS_URL": redisURL, "BRAID_REDIS_KEY_PREFIX": prefix, "BRAID_LOGGING_LEVEL": "warning"]
        let now = Int64(Date().timeIntervalSince1970)
        let page = WalkRecord.Page(ids: ["r1"], aTotal: 1)
        try await withRedisClient(redisURL) { (redis: RedisClient) async throws -> Void in
            let walks = WalkStore(redis: redis, keys: keys, maxBytes: 1_024)
            #expect(try await walks.append(1, pages: [page], from: 1, expiresAt: now - 3_600) == .appended)
            #expect(try await walks.append(2, pages: [page], from: 1, expiresAt: now + 3_600) == .appended)
        }
        let swept = try BraidBinary.run(["ops", "retention"], environment: environment)
        #expect(swept.status == 0, "\(swept.stderr)")
        #expect(swept.stdout.contains("examined 2 retained records, deleted 1"), "\(swept.stdout)")
        try await withRedisClient(redisURL) { (redis: RedisClient) async throws -> Void in
            let walks = WalkStore(redis: redis, keys: keys, maxBytes: 1_024)
            #expect(try await walks.read(1) == nil)
            #expect(try await walks.read(2)?.pages == [page])
        }
    }

    @Test func dlqListShowsDeadLettersAndReplayRepublishesThem() async throws {
        let brokers = try TestEnvironment.kafkaBrokers()
        let (requests, dlq) = (TestEnvironment.uniqueName("requests"), TestEnvironment.uniqueName("dlq"))
        let admin = try KafkaAdmin(brokers: brokers)
        _ = try await admin.createTopic(requests, partitions: 3)
        _ = try await admin.createTopic(dlq, partitions: 3)
        let environment = try Self.kafkaEnvironment(requests: requests, deadLetters: dlq)

        // Five dead letters as the workers write them: two of an unknown ranking, three unparseable.
        let letters: [(key: String, value: String, reason: String)] = [
            ("rank:no_such_ranking:aa", #"{"kind":"ranking","ranking":{"id":"no_such_ranking"}}"#, "unknown ranking 'no_such_ranking'"),
            ("rank:no_such_ranking:bb", #"{"kind":"ranking","ranking":{"id":"no_such_ranking","q":2}}"#, "unknown ranking 'no_such_ranking'"),
        ] + (0..<3).map { ("bad-\($0)", "{\"broken\": \($0)", "invalid request: not JSON (\($0))") }
        var producerConfiguration = KafkaProducerConfiguration(brokers: brokers)
        producerConfiguration.clientID = "ops-test"
        let producer = try KafkaProducer(configuration: producerConfiguration)
        for (index, letter) in letters.enumerated() {
            let headers = [
                KafkaHeader(name: "trace-id", value: Array("t\(index)".utf8)),
                KafkaHeader(name: DeadLetterHeader.reason, value: Array(letter.reason.utf8)),
                KafkaHeader(name: DeadLetterHeader.source, value: Array("\(requests)/0/\(index)".utf8)),
                KafkaHeader(name: DeadLetterHeader.attempts, value: Array("3".utf8)),
                KafkaHeader(name: DeadLetterHeader.failedAt, value: Array("2026-11-22T10:00:0\(index)Z".utf8)),
            ]
            _ = try await producer.sendAndAwait(
                KafkaProducerMessage(topic: dlq, key: Array(letter.key.utf8), value: Array(letter.value.utf8), headers: headers))
        }
        await producer.shutdown()

        let listed = try BraidBinary.run(["ops", "dlq", "list"], environment: environment)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("5 of 5 dead letters in \(dlq) shown"), "\(listed.stdout)")
        for (index, letter) in letters.enumerated() {
            let line = listed.stdout.split(separator: "\n").first { $0.hasSuffix(letter.key) }
            #expect(line != nil, "a line for \(letter.key): \(listed.stdout)")
            #expect(line?.contains(letter.reason) == true && line?.contains("\(requests)/0/\(index)") == true)
            #expect(line?.contains("2026-11-22T10:00:0\(index)Z") == true)
        }

        let filtered = try BraidBinary.run(["ops", "dlq", "list", "--reason-contains", "NO_SUCH"], environment: environment)
        #expect(filtered.stdout.contains("2 of 5 dead letters"), "\(filtered.stdout)")

        // The reader gets kafka.session_timeout_ms as the workers' consumer does: librdkafka
        // refuses one above max.poll.interval.ms (300 s by default) when creating either.
        var longSession = environment
        longSession["BRAID_KAFKA_SESSION_TIMEOUT_MS"] = "400000"
        let refused = try BraidBinary.run(["ops", "dlq", "list"], environment: longSession)
        #expect(refused.status == 1 && refused.stderr.contains("session.timeout.ms"), "\(refused.stdout) \(refused.stderr)")

        let dryRun = try BraidBinary.run(["ops", "dlq", "replay", "--dry-run"], environment: environment)
        #expect(dryRun.status == 0, "\(dryRun.stderr)")
        #expect(dryRun.stdout.contains("dry run: would replay 5 of 5 dead letters from \(dlq) to \(requests)"), "\(dryRun.stdout)")
        let afterDryRun = try await admin.lag(group: TestEnvironment.uniqueName("count"), topic: requests).reduce(0) { $0 + $1.lag }
        #expect(afterDryRun == 0, "a dry run publishes nothing")

        let some = try BraidBinary.run(["ops", "dlq", "replay", "--reason-contains", "no_such_ranking"], environment: environment)
        #expect(some.status == 0, "\(some.stderr)")
        #expect(some.stdout.contains("replayed 2 of 2 selected"), "\(some.stdout)")
        // The two replayed above are recorded: only the other three go out, and a third run
        // over the same letters publishes nothing.
        let dryRunAfter = try BraidBinary.run(["ops", "dlq", "replay", "--dry-run"], environment: environment)
        #expect(dryRunAfter.stdout.contains("would replay 3 of 5 dead letters") && dryRunAfter.stdout.contains("skip 2 already replayed"), "\(dryRunAfter.stdout)")
        let all = try BraidBinary.run(["ops", "dlq", "replay", "--limit", "5"], environment: environment)
        #expect(all.status == 0, "\(all.stderr)")
        #expect(all.stdout.contains("replayed 3 of 5 selected") && all.stdout.contains("skipped 2 already replayed"), "\(all.stdout)")
        let twice = try BraidBinary.run(["ops", "dlq", "replay"], environment: environment)
        #expect(twice.status == 0, "\(twice.stderr)")
        #expect(twice.stdout.contains("replayed 0 of 5 selected") && twice.stdout.contains("skipped 5 already replayed"), "\(twice.stdout)")
        // Unless asked for: --again replays the two unknown-ranking letters once more.
        let again = try BraidBinary.run(["ops", "dlq", "replay", "--again", "--reason-contains", "no_such_ranking"], environment: environment)
        #expect(again.stdout.contains("replayed 2 of 2 selected") && again.stdout.contains("skipped 0 already replayed"), "\(again.stdout)")

        // Seven messages on the requests topic: each letter once, the two --again ones twice;
        // the originals' keys, values and headers, none of ours but where they came from.
        let published = try await admin.lag(group: TestEnvironment.uniqueName("count"), topic: requests).reduce(0) { $0 + $1.lag }
        #expect(published == 7, "messages on the requests topic")
        let consumer = try KafkaConsumer(configuration: KafkaConsumerConfiguration(
            brokers: brokers, groupID: TestEnvironment.uniqueName("reader"), topics: [requests]))
        let deadline = Task {
            try await Task.sleep(for: .seconds(30))
            await consumer.close()
        }
        var received: [KafkaConsumerMessage] = []
        for try await message in consumer.messages {
            received.append(message)
            try consumer.storeOffset(message)
            if received.count == 7 { break }
        }
        deadline.cancel()
        await consumer.close()
        #expect(received.count == 7)
        var counts: [String: Int] = [:]
        for message in received { counts[message.keyString ?? "", default: 0] += 1 }
        #expect(counts == ["rank:no_such_ranking:aa": 2, "rank:no_such_ranking:bb": 2, "bad-0": 1, "bad-1": 1, "bad-2": 1])
        for message in received {
            let original = letters.first { $0.key == message.keyString }
            #expect(message.valueString == original?.value)
            #expect(!message.headers.contains { $0.name.hasPrefix("braid-dlq-") }, "dead-letter headers dropped")
            #expect(message.header("trace-id") != nil, "the original headers kept")
            let source = message.header("braid-replay-of").map { String(decoding: $0, as: UTF8.self) }
            #expect(source?.hasPrefix("\(dlq)/") == true, "where it was replayed from: \(source ?? "none")")
        }
    }

    @Test func lagPrintsASuggestedWorkerCount() async throws {
        let brokers = try TestEnvironment.kafkaBrokers()
        let requests = TestEnvironment.uniqueName("requests")
        _ = try await KafkaAdmin(brokers: brokers).createTopic(requests, partitions: 6)
        let environment = try Self.kafkaEnvironment(requests: requests, deadLetters: TestEnvironment.uniqueName("dlq"))

        let idle = try BraidBinary.run(["ops", "lag"], environment: environment)
        #expect(idle.status == 0, "\(idle.stderr)")
        #expect(idle.stdout.contains("suggested workers: 1 "), "\(idle.stdout)")

        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(brokers: brokers))
        for index in 0..<9 {
            _ = try await producer.sendAndAwait(KafkaProducerMessage(topic: requests, key: "k\(index)", value: "{}"))
        }
        await producer.shutdown()
        let behind = try BraidBinary.run(["ops", "lag", "--lag-per-worker", "2"], environment: environment)
        #expect(behind.status == 0, "\(behind.stderr)")
        #expect(behind.stdout.contains("suggested workers: 5 "), "ceil(9 / 2) = 5: \(behind.stdout)")
        let capped = try BraidBinary.run(["ops", "lag", "--lag-per-worker", "1"], environment: environment)
        #expect(capped.stdout.contains("suggested workers: 6 "), "capped by the partition count: \(capped.stdout)")
        let usage = try BraidBinary.run(["ops", "lag", "--lag-per-worker", "0"], environment: environment)
        #expect(usage.status == 2)
    }
}
