import BraidCore
import BraidKafka
import BraidTestSupport
import Foundation
import Synchronization
import Testing

/// The consumer's buffer state machine, without a broker: hand-out order, the commit rule,
/// in-flight accounting across revocations, pausing and backpressure decisions, and the end
/// of the sequence.
@Suite("Consumer buffer")
struct ConsumerBufferTests {
    static let p0 = TopicPartition(topic: "t", partition: 0)
    static let p1 = TopicPartition(topic: "t", partition: 1)

    static func message(_ partition: Int32, _ offset: Int64) -> KafkaConsumerMessage {
        KafkaConsumerMessage(topic: "t", partition: partition, offset: offset, key: nil, value: Array("\(partition)/\(offset)".utf8))
    }

    static func push(_ buffer: ConsumerBuffer, _ messages: [(Int32, Int64)]) {
        var batch = messages.map { message($0.0, $0.1) }
        buffer.push(&batch)
    }

    /// Finishes a message and returns what was stored for it.
    @discardableResult
    static func finish(_ buffer: ConsumerBuffer, _ message: KafkaConsumerMessage) -> ConsumerBuffer.Settlement {
        // The store closure never throws here.
        (try? buffer.finished(message) { _ in }) ?? .revoked
    }

    /// The next message if one may be handed out now (nil instead of waiting).
    static func nextNow(_ buffer: ConsumerBuffer) async throws -> KafkaConsumerMessage? {
        let task = Task { try await buffer.next() }
        try await Task.sleep(for: .milliseconds(30))
        task.cancel()
        return try await task.value
    }

    @Test func handsOutRoundRobinAcrossPartitionsAndInOrderWithinOne() async throws {
        let buffer = ConsumerBuffer(capacity: 10)
        buffer.assigned([Self.p0, Self.p1])
        Self.push(buffer, [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1)])
        var values: [String] = []
        for _ in 0..<5 { values.append(try #require(try await buffer.next()).valueString) }
        #expect(values == ["0/0", "1/0", "0/1", "1/1", "0/2"])
        #expect(buffer.inFlight(of: [Self.p0]) == 3)
        #expect(buffer.inFlight(of: [Self.p0, Self.p1]) == 5)
        #expect(buffer.bufferedCount == 0)
    }

    @Test func storesOnlyTheContiguousFinishedPrefix() async throws {
        let buffer = ConsumerBuffer(capacity: 10)
        buffer.assigned([Self.p0])
        Self.push(buffer, [(0, 0), (0, 1), (0, 2)])
        let messages = [try #require(try await buffer.next()), try #require(try await buffer.next()), try #require(try await buffer.next())]
        let stored = Mutex<[Int64]>([])
        func finish(_ index: Int) throws -> ConsumerBuffer.Settlement {
            try buffer.finished(messages[index]) { position in stored.withLock { $0.append(position) } }
        }
        #expect(try finish(2) == .pending)
        #expect(try finish(0) == .stored(1))
        #expect(try finish(1) == .stored(3))
        #expect(stored.withLock { $0 } == [1, 3])
        #expect(buffer.position(of: Self.p0) == 3)
        #expect(buffer.inFlight(of: [Self.p0]) == 0)
    }

    @Test func anAbandonedMessageNoLongerHoldsUpARevocationAndIsNeverCommittedPast() async throws {
        let buffer = ConsumerBuffer(capacity: 10)
        buffer.assigned([Self.p0])
        Self.push(buffer, [(0, 0), (0, 1), (0, 2)])
        let first = try #require(try await buffer.next())
        let second = try #require(try await buffer.next())
        let third = try #require(try await buffer.next())
        buffer.abandoned(second)
        #expect(Self.finish(buffer, first) == .stored(1))
        #expect(Self.finish(buffer, third) == .pending)
        #expect(buffer.waitUntilDone(of: [Self.p0], until: Date().addingTimeInterval(0.05)) == 0)
        #expect(buffer.position(of: Self.p0) == 1)
    }

    @Test func aRevocationWaitsForHandedOutMessagesAndWakesWhenTheyAreDone() async throws {
        let buffer = ConsumerBuffer(capacity: 10)
        buffer.assigned([Self.p0])
        Self.push(buffer, [(0, 0), (0, 1)])
        let first = try #require(try await buffer.next())
        let second = try #require(try await buffer.next())

        // Nothing finishes: the wait gives up at its deadline and reports both.
        #expect(buffer.waitUntilDone(of: [Self.p0], until: Date().addingTimeInterval(0.05)) == 2)

        // The poll thread waits (blocking, as in a revocation) while the application finishes
        // them; the wait returns as soon as the last one is done, long before its deadline.
        // Both sides run on threads of their own, as they do in the consumer, so that no clock
        // is involved beyond the deadline: a wake-up that never came returns at the deadline,
        // whatever holds up the cooperative pool (CPU-bound neighbours in the parallel fast
        // tier have held it for 24 s).
        let deadline = Date().addingTimeInterval(60)
        let waiting = DispatchSemaphore(value: 0)
        async let waiter = runOffPool { () -> (left: Int, returned: Date) in
            waiting.signal()
            return (buffer.waitUntilDone(of: [Self.p0], until: deadline), Date())
        }
        async let finisher: Void = runOffPool {
            waiting.wait()
            Self.finish(buffer, first)
            Thread.sleep(forTimeInterval: 0.05)
            Self.finish(buffer, second)
        }
        try await finisher
        let (left, returned) = try await waiter
        #expect(left == 0)
        #expect(returned < deadline, "the wait ran to its deadline: the last finish never woke it")
    }

    @Test func revocationDropsBufferedMessagesAndLateStoresDoNotCountAgainstTheNextAssignment() async throws {
        let buffer = ConsumerBuffer(capacity: 10)
        buffer.assigned([Self.p0, Self.p1])
        Self.push(buffer, [(0, 0), (0, 1), (1, 0)])
        let handedOut = try #require(try await buffer.next())  // 0/0

        buffer.beginRevocation(of: [Self.p0])
        #expect(buffer.bufferedCount == 1)
        #expect(buffer.inFlight(of: [Self.p0]) == 1)
        #expect(!buffer.isCurrent(handedOut), "a message of a partition being revoked")
        buffer.revoked([Self.p0])
        #expect(buffer.assignment == [Self.p1])

        buffer.assigned([Self.p0])
        Self.push(buffer, [(0, 0)])
        _ = try await buffer.next()  // 1/0
        let redelivered = try #require(try await buffer.next())
        #expect(redelivered.valueString == "0/0")
        #expect(buffer.isCurrent(redelivered))
        #expect(Self.finish(buffer, handedOut) == .revoked, "from the old assignment: ignored")
        #expect(buffer.inFlight(of: [Self.p0]) == 1)
        #expect(Self.finish(buffer, redelivered) == .stored(1))
        #expect(buffer.inFlight(of: [Self.p0]) == 0)
    }

    @Test func pausesEverythingWhenFullAndResumesBelowHalfExceptUserPausedPartitions() async throws {
        let buffer = ConsumerBuffer(capacity: 4)
        buffer.assigned([Self.p0, Self.p1])
        #expect(buffer.fetchAction(stalled: true) == .none)
        Self.push(buffer, (0..<4).map { (0, Int64($0)) })
        #expect(buffer.isFull)
        #expect(buffer.fetchAction(stalled: false) == .none)  // full, but not for long yet
        #expect(buffer.fetchAction(stalled: true) == .init(pause: [Self.p0, Self.p1]))
        #expect(buffer.fetchAction(stalled: true) == .none)
        buffer.userPause([Self.p1])
        _ = try await buffer.next()
        _ = try await buffer.next()
        #expect(buffer.fetchAction(stalled: false) == .none)  // 2 left: not below half yet
        _ = try await buffer.next()
        #expect(buffer.fetchAction(stalled: false) == .init(resume: [Self.p0]))
        buffer.userResume([Self.p1])
        #expect(buffer.fetchAction(stalled: false) == .init(resume: [Self.p1]))
    }

    /// A paused partition hands out nothing of what it buffered, and a rebalance that takes
    /// it away and gives it back (librdkafka then fetches it unpaused) pauses it again.
    @Test func aPausedPartitionIsHeldAndPausedAgainWhenAssignedAgain() async throws {
        let buffer = ConsumerBuffer(capacity: 10)
        buffer.assigned([Self.p0, Self.p1])
        buffer.userPause([Self.p1])
        #expect(buffer.fetchAction(stalled: false) == .init(pause: [Self.p1]))
        Self.push(buffer, [(1, 0), (0, 0)])
        #expect(try await buffer.next()?.valueString == "0/0")
        #expect(try await Self.nextNow(buffer) == nil, "p1's buffered message is held while paused")

        // An eager rebalance: everything revoked, then assigned again.
        buffer.beginRevocation(of: [Self.p0, Self.p1])
        buffer.revoked([Self.p0, Self.p1])
        #expect(buffer.fetchAction(stalled: false) == .none)
        buffer.assigned([Self.p0, Self.p1])
        #expect(buffer.fetchAction(stalled: false) == .init(pause: [Self.p1]), "paused again after the rebalance")

        Self.push(buffer, [(1, 0)])
        #expect(try await Self.nextNow(buffer) == nil)
        // A waiting iterator gets the held message as soon as the partition is resumed.
        let waiting = Task { try await buffer.next() }
        try await Task.sleep(for: .milliseconds(20))
        buffer.userResume([Self.p1])
        #expect(try await waiting.value?.valueString == "1/0")
        #expect(buffer.fetchAction(stalled: false) == .init(resume: [Self.p1]))
    }

    /// At the per-partition cap (buffered plus uncommitted) nothing more of that partition is
    /// handed out and its fetching pauses; the other partition goes on.
    @Test func aPartitionAtItsReadAheadCapIsHeldAndPausedWhileOthersGoOn() async throws {
        let buffer = ConsumerBuffer(capacity: 100, maxReadAheadPerPartition: 4)
        buffer.assigned([Self.p0, Self.p1])
        Self.push(buffer, (0..<10).map { (0, Int64($0)) } + [(1, 0), (1, 1)])
        var handedOut: [KafkaConsumerMessage] = []
        while let message = try await Self.nextNow(buffer) { handedOut.append(message) }
        #expect(handedOut.filter { $0.partition == 0 }.map(\.offset) == [0, 1, 2, 3])
        #expect(handedOut.filter { $0.partition == 1 }.count == 2)
        #expect(buffer.fetchAction(stalled: false) == .init(pause: [Self.p0]))

        // Finishing 1 commits nothing (0 is still running): 0 to 3 stay uncommitted.
        Self.finish(buffer, handedOut[2])
        #expect(try await Self.nextNow(buffer) == nil)
        Self.finish(buffer, handedOut[0])  // commits 0 and 1: room for two more
        #expect(try await Self.nextNow(buffer)?.offset == 4)
        #expect(try await Self.nextNow(buffer)?.offset == 5)
        #expect(try await Self.nextNow(buffer) == nil)
        // Fetching resumes only below half the cap (buffered 4 + uncommitted 4 now).
        #expect(buffer.fetchAction(stalled: false) == .none)
    }

    @Test func pollThreadSleepsWhileFullUntilTheApplicationDrainsHalf() async throws {
        let buffer = ConsumerBuffer(capacity: 4)
        buffer.assigned([Self.p0])
        Self.push(buffer, (0..<4).map { (0, Int64($0)) })
        #expect(try await runOffPool { buffer.waitForSpace(seconds: 0.05) } == false)
        let waiter = Task { try await runOffPool { buffer.waitForSpace(seconds: 60) } }
        for _ in 0..<3 { _ = try await buffer.next() }
        #expect(try await waiter.value == true)
    }

    @Test func waitingIteratorGetsThePushedMessageAndFinishEndsTheSequence() async throws {
        let buffer = ConsumerBuffer(capacity: 10)
        buffer.assigned([Self.p0])
        let waiting = Task { try await buffer.next() }
        while buffer.bufferedCount == 0, !waiting.isCancelled {
            Self.push(buffer, [(0, 7)])
            await Task.yield()
        }
        #expect(try await waiting.value?.offset == 7)

        let ended = Task { try await buffer.next() }
        buffer.finish()
        #expect(try await ended.value == nil)
        Self.push(buffer, [(0, 8)])
        #expect(try await buffer.next() == nil)
    }

    @Test func messagesOfUnassignedPartitionsAreNotBuffered() async throws {
        let buffer = ConsumerBuffer(capacity: 10)
        buffer.assigned([Self.p0])
        Self.push(buffer, [(1, 0), (0, 0)])
        #expect(buffer.bufferedCount == 1)
    }

    @Test func cancellingAWaitingIteratorReturnsNil() async throws {
        let buffer = ConsumerBuffer(capacity: 10)
        let waiting = Task { try await buffer.next() }
        waiting.cancel()
        #expect(try await waiting.value == nil)
    }
}
