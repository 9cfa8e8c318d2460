@testable import BraidKafka
import BraidCore
import BraidTestSupport
import Foundation
import Logging
import Synchronization
import Testing

/// The consumer's rebalance sequence without librdkafka: a recording stand-in takes
/// librdkafka's calls, a real ``ConsumerBuffer`` holds the messages, and one journal shows
/// the order in which librdkafka calls, offset stores and the application's handler happened.
@Suite("Consumer rebalancer", .timeLimit(.minutes(5)))
struct ConsumerRebalancerTests {
    static let p0 = TopicPartition(topic: "t", partition: 0)
    static let p1 = TopicPartition(topic: "t", partition: 1)

    final class Journal: Sendable {
        private let entries = Mutex<[String]>([])
        func record(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    /// librdkafka's side, recorded.
    struct Recorded: RebalanceOperations {
        let journal: Journal
        var isCooperative = false
        var isAssignmentLost = false

        func assign(incremental: Bool) { journal.record(incremental ? "incremental assign" : "assign") }
        func unassign(incremental: Bool) { journal.record(incremental ? "incremental unassign" : "unassign") }
        func commitStoredOffsets() { journal.record("commit") }
        func apply(_ action: ConsumerBuffer.FetchAction) {
            if !action.pause.isEmpty { journal.record("pause \(action.pause)") }
            if !action.resume.isEmpty { journal.record("resume \(action.resume)") }
        }
    }

    static func rebalancer(
        _ buffer: ConsumerBuffer, _ journal: Journal, timeout: TimeInterval = 5, handler: Bool = true,
        now: @escaping @Sendable () -> Date = { Date() }
    ) -> ConsumerRebalancer {
        var logger = Logger(label: "braid.kafka.rebalance.test")
        logger.logLevel = .critical
        let record: @Sendable (KafkaRebalanceEvent) async -> Void = { event in journal.record("handler \(event)") }
        var rebalancer = ConsumerRebalancer(buffer: buffer, revocationTimeout: timeout, onRebalance: handler ? record : nil, logger: logger)
        rebalancer.now = now
        return rebalancer
    }

    static func push(_ buffer: ConsumerBuffer, _ offsets: Range<Int64>, partition: Int32 = 0) {
        var batch = offsets.map { KafkaConsumerMessage(topic: "t", partition: partition, offset: $0, key: nil, value: []) }
        buffer.push(&batch)
    }

    /// Finishes a message as ``KafkaConsumer/storeOffset(_:)`` does, recording the store.
    @discardableResult
    static func finish(_ buffer: ConsumerBuffer, _ message: KafkaConsumerMessage, _ journal: Journal) throws -> ConsumerBuffer.Settlement {
        try buffer.finished(message) { position in journal.record("store \(position)") }
    }

    /// Rebalances block their thread (as they block the poll thread): never one of the
    /// cooperative pool's, which the handler needs.
    static func onPollThread(_ body: @escaping @Sendable () -> Void) async throws -> Duration {
        try await runOffPool {
            let started = ContinuousClock.now
            body()
            return ContinuousClock.now - started
        }
    }

    @Test func anAssignmentTakesThePartitionsAndPausesAgainThoseTheApplicationPaused() async throws {
        let (buffer, journal) = (ConsumerBuffer(capacity: 10), Journal())
        let rebalancer = Self.rebalancer(buffer, journal)
        buffer.userPause([Self.p1])
        _ = try await Self.onPollThread { rebalancer.assign([Self.p0, Self.p1], Recorded(journal: journal)) }
        #expect(buffer.assignment == [Self.p0, Self.p1])

        // An eager rebalance takes both away and gives them back: p1 is paused again.
        _ = try await Self.onPollThread {
            rebalancer.revoke([Self.p0, Self.p1], Recorded(journal: journal))
            rebalancer.assign([Self.p0, Self.p1], Recorded(journal: journal))
        }
        let paused = "pause [\(Self.p1)]"
        #expect(journal.all == [
            "assign", paused, "handler assigned([\(Self.p0), \(Self.p1)])",
            "handler revoked([\(Self.p0), \(Self.p1)])", "commit", "unassign",
            "assign", paused, "handler assigned([\(Self.p0), \(Self.p1)])",
        ])
    }

    @Test func theCooperativeProtocolMovesPartitionsIncrementally() async throws {
        let (buffer, journal) = (ConsumerBuffer(capacity: 10), Journal())
        let rebalancer = Self.rebalancer(buffer, journal, handler: false)
        let cooperative = Recorded(journal: journal, isCooperative: true)
        _ = try await Self.onPollThread {
            rebalancer.assign([Self.p0, Self.p1], cooperative)
            rebalancer.revoke([Self.p1], cooperative)
        }
        #expect(buffer.assignment == [Self.p0], "only the revoked partition goes")
        #expect(journal.all == ["incremental assign", "commit", "incremental unassign"])
    }

    /// Handed-out messages finish while the revocation waits: their offsets are stored
    /// before the commit, and the partitions are released only after it. Buffered messages
    /// that nobody started are dropped (the next owner gets them).
    @Test func aRevocationWaitsForHandedOutMessagesCommitsThemAndOnlyThenReleases() async throws {
        let (buffer, journal) = (ConsumerBuffer(capacity: 10), Journal())
        let rebalancer = Self.rebalancer(buffer, journal, timeout: 120)
        _ = try await Self.onPollThread { rebalancer.assign([Self.p0], Recorded(journal: journal)) }
        Self.push(buffer, 0..<3)
        let first = try #require(try await buffer.next())
        let second = try #require(try await buffer.next())

        let finishing = Task {
            while buffer.isCurrent(first) { try await Task.sleep(for: .milliseconds(2)) }  // the revocation has begun
            try await Task.sleep(for: .milliseconds(50))
            try Self.finish(buffer, second, journal)
            try await Task.sleep(for: .milliseconds(50))
            try Self.finish(buffer, first, journal)
        }
        let took = try await Self.onPollThread { rebalancer.revoke([Self.p0], Recorded(journal: journal)) }
        try await finishing.value
        #expect(journal.all.dropFirst(2) == ["handler revoked([\(Self.p0)])", "store 2", "commit", "unassign"])
        #expect(took >= .milliseconds(100) && took < .seconds(110), "waited for the messages, not for the timeout: \(took)")
        #expect(buffer.assignment.isEmpty)
        #expect(buffer.bufferedCount == 0, "the message nobody started was dropped")
    }

    /// After a session timeout another member may own the partitions already: committing
    /// would overwrite its progress, so nothing is committed.
    @Test func aLostAssignmentIsReleasedWithoutACommit() async throws {
        let (buffer, journal) = (ConsumerBuffer(capacity: 10), Journal())
        let rebalancer = Self.rebalancer(buffer, journal, handler: false)
        _ = try await Self.onPollThread { rebalancer.assign([Self.p0], Recorded(journal: journal)) }
        Self.push(buffer, 0..<1)
        try Self.finish(buffer, try #require(try await buffer.next()), journal)
        _ = try await Self.onPollThread { rebalancer.revoke([Self.p0], Recorded(journal: journal, isAssignmentLost: true)) }
        #expect(journal.all == ["assign", "store 1", "unassign"])
    }

    /// The deadline comes from the rebalancer's clock: with it already past, the partitions
    /// go at once with their unfinished message, whose later store no longer counts.
    @Test func pastTheDeadlineThePartitionsGoWithTheirUnfinishedMessages() async throws {
        let (buffer, journal) = (ConsumerBuffer(capacity: 10), Journal())
        let rebalancer = Self.rebalancer(buffer, journal, timeout: 60, handler: false) { Date().addingTimeInterval(-3600) }
        _ = try await Self.onPollThread { rebalancer.assign([Self.p0], Recorded(journal: journal)) }
        Self.push(buffer, 0..<2)
        let done = try #require(try await buffer.next())
        let stuck = try #require(try await buffer.next())
        try Self.finish(buffer, done, journal)

        let took = try await Self.onPollThread { rebalancer.revoke([Self.p0], Recorded(journal: journal)) }
        #expect(took < .seconds(5), "did not wait: \(took)")
        #expect(journal.all == ["assign", "store 1", "commit", "unassign"])
        #expect(try Self.finish(buffer, stuck, journal) == .revoked)
        #expect(journal.all.count == 4, "nothing stored for the revoked message")
    }

    /// A slow handler and an unfinished message share one deadline: the revocation takes the
    /// revocation timeout, not the handler's time plus the timeout.
    @Test func theHandlerAndTheWaitForMessagesShareOneDeadline() async throws {
        let buffer = ConsumerBuffer(capacity: 10)
        var logger = Logger(label: "braid.kafka.rebalance.test")
        logger.logLevel = .critical
        let rebalancer = ConsumerRebalancer(
            buffer: buffer, revocationTimeout: 2, onRebalance: { _ in try? await Task.sleep(for: .seconds(10)) }, logger: logger)
        buffer.assigned([Self.p0])
        Self.push(buffer, 0..<1)
        _ = try #require(try await buffer.next())
        let took = try await Self.onPollThread { rebalancer.revoke([Self.p0], Recorded(journal: Journal())) }
        // Two deadlines would take four seconds.
        #expect(took >= .seconds(2) && took < .milliseconds(3500), "one deadline for both: \(took)")
    }

    @Test func aRebalanceErrorDropsTheWholeAssignment() async throws {
        let (buffer, journal) = (ConsumerBuffer(capacity: 10), Journal())
        let rebalancer = Self.rebalancer(buffer, journal, handler: false)
        _ = try await Self.onPollThread {
            rebalancer.assign([Self.p0, Self.p1], Recorded(journal: journal, isCooperative: true))
            rebalancer.fail(Recorded(journal: journal, isCooperative: true))
        }
        #expect(buffer.assignment.isEmpty)
        #expect(journal.all == ["incremental assign", "unassign"], "the whole assignment, whatever the protocol")
    }
}
