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
