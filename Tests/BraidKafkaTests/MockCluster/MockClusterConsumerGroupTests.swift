import BraidTestSupport
import BraidKafka
import Logging
import Synchronization
import Testing

/// Consumer groups of the real ``KafkaConsumer`` over librdkafka's mock cluster (no broker
/// process): assignment, a rebalance when a member leaves, revocations that wait for
/// handed-out messages, and committed offsets. Each test has its own cluster.
@Suite("Consumer group over librdkafka's mock cluster", .timeLimit(.minutes(5)))
struct MockClusterConsumerGroupTests {
    static var quiet: Logger {
        var logger = Logger(label: "braid.kafka.mock")
        logger.logLevel = .critical
        return logger
    }

    /// Produces values "<i>" (key "k<i>") for `range` to partition i % `partitions`; returns once all were acknowledged.
    static func produce(_ range: Range<Int>, to topic: String, partitions: Int32, on cluster: KafkaMockCluster) async throws {
        let producer = try KafkaProducer(configuration: cluster.producerConfiguration(), logger: quiet)
        for index in range {
            try await producer.send(KafkaProducerMessage(topic: topic, partition: Int32(index) % partitions, key: "k\(index)", value: "\(index)"))
        }
        await producer.shutdown()
        #expect(producer.deliveryCounts == KafkaDeliveryCounts(delivered: range.count, failed: 0))
    }

    /// Takes every message of `consumer`, records it as processed by `index` and stores its offset.
    static func consume(_ consumer: KafkaConsumer, as index: Int, into ledger: Ledger) async throws {
        for try await message in consumer.messages {
            ledger.processed(message.valueString, by: index)
            try consumer.storeOffset(message)
        }
    }

    /// Two members split four partitions; when one leaves, the other takes all four over, and
    /// every message is processed exactly once and committed. With the eager assignors the
    /// survivor gives everything back and gets it all again; with cooperative-sticky it only
    /// gains the leaver's partitions.
    @Test(arguments: ["range,roundrobin", "cooperative-sticky"])
    func aGroupOfTwoSharesTheTopicAndTheSurvivorTakesOverWhenOneLeaves(strategy: String) async throws {
        let cluster = try KafkaMockCluster()
        let (topic, group) = ("orders", "group")
        try cluster.createTopic(topic, partitions: 4)
        var configuration = cluster.consumerConfiguration(topic: topic, group: group)
        configuration.properties["partition.assignment.strategy"] = strategy
        // The leaver leaves by closing (the group rebalances at once, whatever this is), and its
        // close() must commit what it processed: on a busy machine the default session expired
        // during close() (no heartbeats then) and the commit was lost, so the survivor processed
        // the leaver's 100 messages again (CI, 2026-11-29: 400 of 300). Not longer: the mock
        // cluster's first rebalance of the two waits out a session (120 s missed the test's
        // 120 s wait for it); 30 s makes this test take about 31 s.
        configuration.sessionTimeoutMilliseconds = 30_000
        let ledger = Ledger()
        let survivor = try KafkaConsumer(configuration: configuration, logger: Self.quiet) { ledger.rebalanced($0, consumer: 0) }
        let leaver = try KafkaConsumer(configuration: configuration, logger: Self.quiet) { ledger.rebalanced($0, consumer: 1) }

        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await Self.consume(survivor, as: 0, into: ledger) }
            tasks.addTask { try await Self.consume(leaver, as: 1, into: ledger) }
            try await eventually("two partitions each", within: .seconds(120)) {
                survivor.assignment.count == 2 && leaver.assignment.count == 2
            }
            try await Self.produce(0..<200, to: topic, partitions: 4, on: cluster)
            try await eventually("200 messages processed", within: .seconds(120)) { ledger.distinctCount == 200 }
            #expect(ledger.values(of: 0).count == 100 && ledger.values(of: 1).count == 100)

            let eventsBeforeLeaving = ledger.events(of: 0).count
            await leaver.close()
            try await eventually("the survivor owning all four partitions", within: .seconds(120)) { survivor.assignment.count == 4 }
            try await Self.produce(200..<300, to: topic, partitions: 4, on: cluster)
            try await eventually("300 messages processed", within: .seconds(120)) { ledger.distinctCount == 300 }
            await survivor.close()
            try await tasks.waitForAll()
            // Between the leave and the survivor's own close (its last event).
            let events = ledger.events(of: 0).dropFirst(eventsBeforeLeaving).dropLast()
            let revoked = events.contains { if case .revoked = $0 { true } else { false } }
            #expect(revoked == (strategy != "cooperative-sticky"), "\(events)")
        }

        #expect(ledger.totalCount == 300, "processed twice: \(ledger.duplicates.prefix(10))")
        #expect(ledger.values(of: 1).count == 100, "the leaver got nothing after it left")
        // Everything was committed: the group's lag is zero on every partition.
        let lag = try await KafkaAdmin(brokers: cluster.brokers, timeoutMilliseconds: 5_000, logger: Self.quiet).lag(group: group, topic: topic)
        #expect(lag.map(\.lag) == [0, 0, 0, 0], "\(lag)")
        #expect(lag.compactMap(\.committed).reduce(0, +) == 300)
    }

    /// A member leaving with a message still being processed: the revocation waits for it,
    /// commits it, and only then gives the partition away.
    @Test func aRevocationWaitsForAHandedOutMessageAndCommitsIt() async throws {
        let cluster = try KafkaMockCluster()
        let (topic, group) = ("jobs", "group")
        try cluster.createTopic(topic, partitions: 1)
        try await Self.produce(0..<10, to: topic, partitions: 1, on: cluster)
        var configuration = cluster.consumerConfiguration(topic: topic, group: group)
        // The wait must end with the message, not at a timeout; and the session must outlast
        // whatever holds this task back on a busy machine (no heartbeats during close()).
        configuration.revocationTimeoutMilliseconds = 120_000
        configuration.sessionTimeoutMilliseconds = 120_000
        let first = try KafkaConsumer(configuration: configuration, logger: Self.quiet)
        var iterator = first.messages.makeAsyncIterator()
        var held: KafkaConsumerMessage?
        for _ in 0..<5 {
            let message = try #require(try await iterator.next())
            if message.offset == 4 { held = message } else { try first.storeOffset(message) }
        }
        let inFlight = try #require(held)

        let closed = Atomic<Bool>(false)
        let closing = Task {
            await first.close()
            closed.store(true, ordering: .relaxed)
        }
        try await eventually("the revocation to begin", within: .seconds(120)) { !first.isCurrent(inFlight) }
        try await Task.sleep(for: .milliseconds(200))
        let closedEarly = closed.load(ordering: .relaxed)
        #expect(!closedEarly, "the revocation waits for the handed-out message")
        try first.storeOffset(inFlight)  // finished within the revocation timeout: still counts
        await closing.value

        // Offsets 0-4 committed (the buffered 5-9 were never handed out): the next member
        // starts at 5 and does not get the finished message again.
        let lag = try await KafkaAdmin(brokers: cluster.brokers, timeoutMilliseconds: 5_000, logger: Self.quiet).lag(group: group, topic: topic)
        #expect(lag.first?.committed == 5)
    }

    /// A message not finished within the revocation timeout: the partition is given away
    /// anyway, its offset is not committed, and the next member gets it again.
    @Test func aMessageUnfinishedAtTheRevocationTimeoutIsRedelivered() async throws {
        let cluster = try KafkaMockCluster()
        let (topic, group) = ("jobs", "group")
        try cluster.createTopic(topic, partitions: 1)
        try await Self.produce(0..<3, to: topic, partitions: 1, on: cluster)
        var configuration = cluster.consumerConfiguration(topic: topic, group: group)
        configuration.revocationTimeoutMilliseconds = 300
        let first = try KafkaConsumer(configuration: configuration, logger: Self.quiet)
        var iterator = first.messages.makeAsyncIterator()
        let done = try #require(try await iterator.next())
        let stuck = try #require(try await iterator.next())
        try first.storeOffset(done)

        let started = ContinuousClock.now
        await first.close()
        // Not sooner than the timeout (a close that waits forever would hit the suite's time limit).
        #expect(ContinuousClock.now - started >= .milliseconds(300))
        #expect(throws: KafkaError.self, "too late: the partition is gone") { try first.storeOffset(stuck) }

        let lag = try await KafkaAdmin(brokers: cluster.brokers, timeoutMilliseconds: 5_000, logger: Self.quiet).lag(group: group, topic: topic)
        #expect(lag.first?.committed == 1)
        let next = try KafkaConsumer(configuration: configuration, logger: Self.quiet)
        var again = next.messages.makeAsyncIterator()
        #expect(try await again.next()?.offset == stuck.offset)
        await next.close()
    }

    /// Known issue: close() unsubscribes before the revocation runs, and librdkafka sends no
    /// heartbeats without a subscription. A handed-out message that takes longer than
    /// `session.timeout.ms` to finish during close() therefore costs the commit (the group
    /// has dropped the member: UNKNOWN_MEMBER_ID), and the finished message is delivered
    /// again, although the revocation timeout (10 s by default) outlasts the session (6 s).
    @Test func aFinishSlowerThanTheSessionTimeoutDuringCloseLosesTheCommit() async throws {
        let cluster = try KafkaMockCluster()
        let (topic, group) = ("jobs", "group")
        try cluster.createTopic(topic, partitions: 1)
        try await Self.produce(0..<3, to: topic, partitions: 1, on: cluster)
        var configuration = cluster.consumerConfiguration(topic: topic, group: group)
        configuration.sessionTimeoutMilliseconds = 1_500
        configuration.revocationTimeoutMilliseconds = 120_000
        let consumer = try KafkaConsumer(configuration: configuration, logger: Self.quiet)
        var iterator = consumer.messages.makeAsyncIterator()
        let slow = try #require(try await iterator.next())
        let closing = Task { await consumer.close() }
        try await eventually("the revocation to begin", within: .seconds(120)) { !consumer.isCurrent(slow) }
        try await Task.sleep(for: .seconds(3))  // twice the session timeout
        try consumer.storeOffset(slow)  // within the revocation timeout: the revocation takes it
        await closing.value
        let lag = try await KafkaAdmin(brokers: cluster.brokers, timeoutMilliseconds: 5_000, logger: Self.quiet).lag(group: group, topic: topic)
        withKnownIssue("librdkafka sends no heartbeats during close(), so the commit on revocation fails after the session timeout") {
            #expect(lag.first?.committed == 1)
        }
    }
}
