import BraidContracts
import BraidCore
import BraidKafka
import BraidPrecompute
import BraidRedis
import BraidTestSupport
import Testing

/// "Set a marker, then publish" against the real Redis and broker: one request per key and
/// window, whoever asks and however often.
@Suite("Deduplicating publisher", .integration)
struct DeduplicatingPublisherTests {
    @Test func aKeyIsPublishedOncePerWindowAndOtherKeysAreNotHeldBack() async throws {
        let brokers = try TestEnvironment.kafkaBrokers()
        let topic = TestEnvironment.uniqueName("braid.test.dedup")
        let admin = try KafkaAdmin(brokers: brokers)
        try await admin.createTopic(topic, partitions: 2)
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(brokers: brokers))
        let keys = CacheKeys(prefix: TestEnvironment.uniqueName("braid"))
        let ranking = PrecomputeRequest(body: .ranking(.init(ranking: "featured", query: "Curry Rice")))
        let respelled = PrecomputeRequest(body: .ranking(.init(ranking: "featured", query: "curry  rice")))
        let component = PrecomputeRequest(body: .component(.init(feed: "home", type: .carousel, scope: ComponentScope(segment: "all"))))

        let published = try await withRedisClient(try TestEnvironment.redisURL()) { redis in
            let requests = DeduplicatingPublisher(publisher: RequestPublisher(producer: producer, topic: topic), redis: redis, keys: keys)
            // Two "gateways" (two publishers) asking concurrently, many times.
            let other = DeduplicatingPublisher(publisher: RequestPublisher(producer: producer, topic: topic), redis: redis, keys: keys)
            let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<10 {
                    group.addTask { try await (index.isMultiple(of: 2) ? requests : other).publish(index < 5 ? ranking : respelled, reason: "miss") }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 }.count == 1)
            #expect(try await requests.publish(component, reason: "refresh"))
            #expect(try await redis.getString(keys.requestMarker(for: ranking)) == "miss")
            guard case .seconds(let ttl) = try await redis.ttl(keys.requestMarker(for: component)) else {
                Issue.record("the marker has no TTL"); return 0
            }
            #expect((1...60).contains(ttl))
            return outcomes.filter { $0 }.count + 1
        }
        await producer.shutdown()
        let lag = try await admin.lag(group: TestEnvironment.uniqueName("nobody"), topic: topic)
        #expect(lag.map(\.lag).reduce(0, +) == Int64(published))
        #expect(published == 2)
    }
}
