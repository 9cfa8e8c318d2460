@testable import BraidWorker
import Synchronization
import Testing

@Suite("lane dispatcher")
struct LaneDispatcherTests {
    struct Item: Sendable { let lane: Int; let sequence: Int }

    final class Recorder: Sendable {
        struct State { var perLane: [Int: [Int]] = [:]; var inFlight = 0; var maxInFlight = 0 }
        let state = Mutex(State())
    }

    @Test func keepsOrderWithinALaneAndBoundsConcurrency() async throws {
        let lanes = 6, perLane = 150, limit = 4
        let items = (0..<perLane).flatMap { sequence in (0..<lanes).map { Item(lane: $0, sequence: sequence) } }
        let recorder = Recorder()
        let input = AsyncStream<Item> { continuation in
            for item in items { continuation.yield(item) }
            continuation.finish()
        }
        try await LaneDispatcher(limit: limit).run(input, lane: \.lane) { item in
            recorder.state.withLock { $0.inFlight += 1; $0.maxInFlight = max($0.maxInFlight, $0.inFlight) }
            // Uneven work so lanes overtake each other.
            try? await Task.sleep(for: .microseconds((item.sequence * 7 + item.lane * 13) % 200))
            recorder.state.withLock { $0.inFlight -= 1; $0.perLane[item.lane, default: []].append(item.sequence) }
        }
        let state = recorder.state.withLock { $0 }
        #expect(state.perLane.count == lanes)
        for lane in 0..<lanes {
            #expect(state.perLane[lane] == Array(0..<perLane), "lane \(lane) out of order or incomplete")
        }
        #expect(state.maxInFlight <= limit)
        #expect(state.maxInFlight > 1, "lanes never ran in parallel")
    }

    /// Input in runs of one lane (as a Kafka fetch delivers one partition's messages together)
    /// must not serialise the lanes: queued items do not count against the processing limit.
    @Test func runsOfOneLaneDoNotBlockTheOthers() async throws {
        let lanes = 4, perLane = 40, limit = 4
        let items = (0..<lanes).flatMap { lane in (0..<perLane).map { Item(lane: lane, sequence: $0) } }
        let recorder = Recorder()
        let input = AsyncStream<Item> { continuation in
            for item in items { continuation.yield(item) }
            continuation.finish()
        }
        try await LaneDispatcher(limit: limit, readAhead: lanes * perLane).run(input, lane: \.lane) { item in
            recorder.state.withLock { $0.inFlight += 1; $0.maxInFlight = max($0.maxInFlight, $0.inFlight) }
            try? await Task.sleep(for: .milliseconds(1))
            recorder.state.withLock { $0.inFlight -= 1; $0.perLane[item.lane, default: []].append(item.sequence) }
        }
        let state = recorder.state.withLock { $0 }
        #expect(state.maxInFlight == limit, "all lanes should run at once")
        for lane in 0..<lanes { #expect(state.perLane[lane] == Array(0..<perLane)) }
    }

    @Test func readAheadBoundsWhatIsTakenFromTheInput() async throws {
        let taken = Recorder()
        let input = AsyncStream<Item> { continuation in
            for sequence in 0..<100 { continuation.yield(Item(lane: sequence % 3, sequence: sequence)) }
            continuation.finish()
        }
        // Counts items taken but not finished, seen from inside the handler.
        let counted = CountingSequence(base: input, recorder: taken)
        try await LaneDispatcher(limit: 2, readAhead: 10).run(counted, lane: \.lane) { _ in
            try? await Task.sleep(for: .microseconds(200))
            taken.state.withLock { $0.inFlight -= 1 }
        }
        #expect(taken.state.withLock { $0.maxInFlight } <= 10)
    }

    @Test func oneLaneRunsStrictlySequentially() async throws {
        let recorder = Recorder()
        let input = AsyncStream<Item> { continuation in
            for sequence in 0..<50 { continuation.yield(Item(lane: 0, sequence: sequence)) }
            continuation.finish()
        }
        try await LaneDispatcher(limit: 8).run(input, lane: \.lane) { item in
            recorder.state.withLock { $0.inFlight += 1; $0.maxInFlight = max($0.maxInFlight, $0.inFlight) }
            await Task.yield()
            recorder.state.withLock { $0.inFlight -= 1; $0.perLane[0, default: []].append(item.sequence) }
        }
        let state = recorder.state.withLock { $0 }
        #expect(state.maxInFlight == 1)
        #expect(state.perLane[0] == Array(0..<50))
    }
}

/// Counts elements taken from a sequence into `recorder.inFlight` (the handler counts them
/// down), so a test can see how far the dispatcher reads ahead.
struct CountingSequence<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element: Sendable {
    typealias Element = Base.Element
    let base: Base
    let recorder: LaneDispatcherTests.Recorder

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let recorder: LaneDispatcherTests.Recorder

        mutating func next() async throws -> Element? {
            guard let element = try await base.next() else { return nil }
            recorder.state.withLock { $0.inFlight += 1; $0.maxInFlight = Swift.max($0.maxInFlight, $0.inFlight) }
            return element
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), recorder: recorder)
    }
}
