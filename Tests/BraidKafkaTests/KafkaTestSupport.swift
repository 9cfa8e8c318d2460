import BraidKafka
import BraidTestSupport
import Foundation
import Synchronization

/// Shared plumbing of the Kafka integration tests: fresh topics, bulk production, waiting
/// with a deadline, and a thread-safe record of what consumers processed.
enum KafkaTest {
    struct Timeout: Error, CustomStringConvertible { let description: String }

    static func brokers() throws -> String { try TestEnvironment.kafkaBrokers() }

    /// A topic no other test uses, created through ``KafkaAdmin``.
    static func freshTopic(_ prefix: String, partitions: Int32 = 6) async throws -> String {
        let topic = TestEnvironment.uniqueName("braid.test.\(prefix)")
        let admin = try KafkaAdmin(brokers: try brokers())
        try await admin.createTopic(topic, partitions: partitions)
        return topic
    }

    static func consumerConfiguration(topic: String, group: String) throws -> KafkaConsumerConfiguration {
        var configuration = KafkaConsumerConfiguration(brokers: try brokers(), groupID: group, topics: [topic])
        configuration.sessionTimeoutMilliseconds = 6_000
        configuration.heartbeatIntervalMilliseconds = 300
        return configuration
    }

    /// Produces `count` messages with value "<i>", key "k<i>", to partition i % partitions
    /// when `partitions` is given; returns once all were delivered.
    static func produce(_ count: Int, to topic: String, partitions: Int32? = nil) async throws {
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(brokers: try brokers()))
        for index in 0..<count {
            try await producer.send(
                KafkaProducerMessage(
                    topic: topic, partition: partitions.map { Int32(index) % $0 }, key: "k\(index)", value: "\(index)"))
        }
        await producer.shutdown()
        let counts = producer.deliveryCounts
        guard counts.delivered == count else {
            throw Timeout(description: "produced \(counts.delivered) of \(count) messages (\(counts.failed) failed)")
        }
    }
    /// Runs `body`, failing if it takes longer than `seconds` (so a hang fails the test).
    static func within<T: Sendable>(_ seconds: Double, _ what: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                throw Timeout(description: "\(what) did not finish within \(seconds)s")
            }
            return value
        }
    }
}

/// What consumers processed: how often each message value was seen, by whom, and the
/// rebalance events each consumer saw.
final class Ledger: Sendable {
    private struct State {
        var seen: [String: Int] = [:]
        var byConsumer: [Int: [String]] = [:]
        var events: [Int: [KafkaRebalanceEvent]] = [:]
    }

    private let state = Mutex(State())

    func processed(_ value: String, by consumer: Int) {
        state.withLock { state in
            state.seen[value, default: 0] += 1
            state.byConsumer[consumer, default: []].append(value)
        }
    }

    func rebalanced(_ event: KafkaRebalanceEvent, consumer: Int) {
        state.withLock { $0.events[consumer, default: []].append(event) }
    }

    var distinctCount: Int { state.withLock { $0.seen.count } }
    var totalCount: Int { state.withLock { $0.seen.values.reduce(0, +) } }
    var duplicates: [String] { state.withLock { $0.seen.filter { $0.value > 1 }.map(\.key).sorted() } }
    func values(of consumer: Int) -> [String] { state.withLock { $0.byConsumer[consumer] ?? [] } }
    func events(of consumer: Int) -> [KafkaRebalanceEvent] { state.withLock { $0.events[consumer] ?? [] } }
}
