import BraidKafka
import BraidTestSupport
import Synchronization
import Testing

/// Consumer groups against the real broker: members joining mid-stream and a member that
/// dies without leaving.
@Suite("Kafka consumer group", .integration)
struct ConsumerGroupTests {
    /// Three members join at 0 s, 3 s and 6 s while 3,000 messages are being processed (each
    /// takes ~2 ms, so the first member alone is still busy when the others join). Every
    /// rebalance revokes partitions with work in flight; none of it may be redelivered.
    @Test func threeConsumersJoiningAtDifferentTimesProcessEveryMessageExactlyOnce() async throws {
        let topic = try await KafkaTest.freshTopic("group")
        let total = 3_000
        try await KafkaTest.produce(total, to: topic)
        let group = TestEnvironment.uniqueName("group")
        let ledger = Ledger()
        let consumers = Members()

        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for (index, delay) in [0, 3, 6].enumerated() {
                tasks.addTask {
                    try await Task.sleep(for: .seconds(delay))
                    let consumer = try KafkaConsumer(
                        configuration: try KafkaTest.consumerConfiguration(topic: topic, group: group),
                        onRebalance: { ledger.rebalanced($0, consumer: index) })
                    consumers.add(consumer, as: index)
                    for try await message in consumer.messages {
                        try await Task.sleep(for: .milliseconds(2))
                        ledger.processed(message.valueString, by: index)
                        try consumer.storeOffset(message)
                    }
                }
            }
            try await eventually("all \(total) messages processed by 3 members", within: .seconds(90)) {
                ledger.distinctCount == total && consumers.count == 3
            }
            // Leaving one by one rebalances twice more; that must not redeliver anything either.
            for index in 0..<3 {
                await consumers[index]?.close()
            }
            try await tasks.waitForAll()
        }

        #expect(ledger.distinctCount == total)
        #expect(ledger.duplicates.isEmpty, "processed twice: \(ledger.duplicates.prefix(20))")
        #expect(ledger.totalCount == total)
        // The first member was running when the second joined: it must have given partitions back.
        #expect(ledger.events(of: 0).contains { if case .revoked = $0 { true } else { false } })
        #expect(!ledger.values(of: 0).isEmpty)
    }

    /// A member processes its share, commits half of it and dies without closing (no commit,
    /// no LeaveGroup). After the session timeout the survivor gets those partitions and
    /// receives exactly the messages the dead member had not committed.
    @Test func messagesAConsumerDidNotCommitBeforeCrashingGoToTheSurvivor() async throws {
        let topic = try await KafkaTest.freshTopic("crash")
        let group = TestEnvironment.uniqueName("crash")
        let ledger = Ledger()
        let survivor = try KafkaConsumer(configuration: try KafkaTest.consumerConfiguration(topic: topic, group: group))
        let victim = try KafkaConsumer(configuration: try KafkaTest.consumerConfiguration(topic: topic, group: group))
        let survivorTask = Task {
            for try await message in survivor.messages {
                ledger.processed(message.valueString, by: 0)
                try survivor.storeOffset(message)
            }
        }
        try await eventually("both members assigned", within: .seconds(30)) {
            !survivor.assignment.isEmpty && !victim.assignment.isEmpty
                && survivor.assignment.count + victim.assignment.count == 6
        }
        let victimShare = victim.assignment.count * 100
        try await KafkaTest.produce(600, to: topic, partitions: 6)

        let received = try await KafkaTest.within(30, "the victim receiving its \(victimShare) messages") {
            var received: [KafkaConsumerMessage] = []
            for try await message in victim.messages {
                received.append(message)
                if received.count == victimShare { break }
            }
            return received
        }
        let committed = received.prefix(victimShare / 2)
        for message in committed { try victim.storeOffset(message) }
        try await victim.commit()
        await victim._abandonWithoutClosing()

        let uncommitted = Set(received.dropFirst(victimShare / 2).map(\.valueString))
        try await eventually("the survivor receiving the crashed member's uncommitted messages", within: .seconds(45)) {
            uncommitted.isSubset(of: Set(ledger.values(of: 0)))
        }
        await survivor.close()
        try await survivorTask.value

        let survivorValues = Set(ledger.values(of: 0))
        let committedValues = Set(committed.map(\.valueString))
        #expect(committedValues.isDisjoint(with: survivorValues), "committed messages were redelivered")
        #expect(survivorValues.union(committedValues) == Set((0..<600).map(String.init)))
        #expect(ledger.duplicates.isEmpty)
    }
}

/// The consumers a test started, by index.
final class Members: Sendable {
    private let members = Mutex<[Int: KafkaConsumer]>([:])

    func add(_ consumer: KafkaConsumer, as index: Int) { members.withLock { $0[index] = consumer } }
    var count: Int { members.withLock { $0.count } }
    subscript(index: Int) -> KafkaConsumer? { members.withLock { $0[index] } }
}
