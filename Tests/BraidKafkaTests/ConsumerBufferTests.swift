import BraidKafka
import BraidTestSupport
import Foundation
import Testing

/// The consumer's buffer state machine, without a broker: hand-out order, in-flight
/// accounting across revocations, backpressure decisions, and the end of the sequence.
@Suite("Consumer buffer")
struct ConsumerBufferTests {
    static let p0 = TopicPartition(topic: "t", partition: 0)
    static let p1 = TopicPartition(topic: "t", partition: 1)

    static func message(_ partition: Int32, _ offset: Int64) -> KafkaConsumerMessage {
        KafkaConsumerMessage(topic: "t", partition: partition, offset: offset, key: nil, value: Array("\(partition)/\(offset)".utf8))
    }

    @Test func handsOutInOrderAndCountsWorkUntilStored() async throws {
        let buffer = ConsumerBuffer(capacity: 10)
        buffer.assigned([Self.p0, Self.p1])
        var batch = [Self.message(0, 0), Self.message(1, 0), Self.message(0, 1)]
        buffer.push(&batch)
        #expect(batch.isEmpty)

        let first = try #require(try await buffer.next())
        let second = try #require(try await buffer.next())
        #expect(first.valueString == "0/0" && second.valueString == "1/0")
        #expect(buffer.inFlight(of: [Self.p0]) == 1)
        #expect(buffer.inFlight(of: [Self.p0, Self.p1]) == 2)
        buffer.markDone(first)
        #expect(buffer.inFlight(of: [Self.p0]) == 0)
        #expect(buffer.bufferedCount == 1)
    }

    @Test func aRevocationWaitsForHandedOutMessagesAndWakesWhenTheyAreDone() async throws {
        let buffer = ConsumerBuffer(capacity: 10)
        buffer.assigned([Self.p0])
        var batch = [Self.message(0, 0), Self.message(0, 1)]
        buffer.push(&batch)
        let first = try #require(try await buffer.next())
        let second = try #require(try await buffer.next())

        // Nothing finishes: the wait gives up at its deadline and reports both.
        #expect(buffer.waitUntilDone(of: [Self.p0], until: Date().addingTimeInterval(0.05)) == 2)

        // The poll thread waits (blocking, as in a revocation) while the application finishes
        // them; the wait returns as soon as the last one is done, long before its deadline.
        // (Not a speed check: a wake-up that never came would show as the whole 30 s.)
        let started = ContinuousClock.now
        let waiter = Task.detached { buffer.waitUntilDone(of: [Self.p0], until: Date().addingTimeInterval(30)) }
        buffer.markDone(first)
        try await Task.sleep(for: .milliseconds(20))
        buffer.markDone(second)
        #expect(await waiter.value == 0)
        #expect(ContinuousClock.now - started < .seconds(20))
    }

    @Test func revocationDropsBufferedMessagesAndLateStoresDoNotCountAgainstTheNextAssignment() async throws {
        let buffer = ConsumerBuffer(capacity: 10)
        buffer.assigned([Self.p0, Self.p1])
        var batch = [Self.message(0, 0), Self.message(0, 1), Self.message(1, 0)]
        buffer.push(&batch)
        let handedOut = try #require(try await buffer.next())  // 0/0

        buffer.dropBuffered(of: [Self.p0])
        #expect(buffer.bufferedCount == 1)
        #expect(buffer.inFlight(of: [Self.p0]) == 1)
        buffer.revoked([Self.p0])
        #expect(buffer.assignment == [Self.p1])

        buffer.assigned([Self.p0])
        var again = [Self.message(0, 0)]
        buffer.push(&again)
        _ = try await buffer.next()  // 1/0
        let redelivered = try #require(try await buffer.next())
        #expect(redelivered.valueString == "0/0")
        buffer.markDone(handedOut)  // from the old assignment: ignored
        #expect(buffer.inFlight(of: [Self.p0]) == 1)
        buffer.markDone(redelivered)
        #expect(buffer.inFlight(of: [Self.p0]) == 0)
    }

    @Test func pausesWhenFullAndResumesBelowHalfExceptUserPausedPartitions() async throws {
        let buffer = ConsumerBuffer(capacity: 4)
        buffer.assigned([Self.p0, Self.p1])
        #expect(buffer.fetchAction(stalled: true) == .none)
        var batch = (0..<4).map { Self.message(0, Int64($0)) }
        buffer.push(&batch)
        #expect(buffer.isFull)
        #expect(buffer.fetchAction(stalled: false) == .none)  // full, but not for long yet
        #expect(buffer.fetchAction(stalled: true) == .pause([Self.p0, Self.p1]))
        #expect(buffer.fetchAction(stalled: true) == .none)
        buffer.userPause([Self.p1])
        #expect(buffer.userResume([]) == [])
        _ = try await buffer.next()
        _ = try await buffer.next()
        #expect(buffer.fetchAction(stalled: false) == .none)  // 2 left: not below half yet
        _ = try await buffer.next()
        #expect(buffer.fetchAction(stalled: false) == .resume([Self.p0]))
        #expect(buffer.userResume([Self.p1]) == [Self.p1])
    }

    @Test func pollThreadSleepsWhileFullUntilTheApplicationDrainsHalf() async throws {
        let buffer = ConsumerBuffer(capacity: 4)
        buffer.assigned([Self.p0])
        var batch = (0..<4).map { Self.message(0, Int64($0)) }
        buffer.push(&batch)
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
            var batch = [Self.message(0, 7)]
            buffer.push(&batch)
            await Task.yield()
        }
        #expect(try await waiting.value?.offset == 7)

        let ended = Task { try await buffer.next() }
        buffer.finish()
        #expect(try await ended.value == nil)
        var late = [Self.message(0, 8)]
        buffer.push(&late)
        #expect(try await buffer.next() == nil)
    }

    @Test func cancellingAWaitingIteratorReturnsNil() async throws {
        let buffer = ConsumerBuffer(capacity: 10)
        let waiting = Task { try await buffer.next() }
        waiting.cancel()
        #expect(try await waiting.value == nil)
    }
}
