@testable import BraidWorker
import Testing

/// Which work may run, without tasks: one item per lane at a time, lanes in turn, and lanes
/// that disappear when they run dry.
@Suite("Lane queues")
struct LaneQueuesTests {
    @Test func oneItemPerLaneRunsAtATimeInArrivalOrder() {
        var queues = LaneQueues<String, Int>()
        let first = queues.enqueue(1, lane: "a")
        let second = queues.enqueue(2, lane: "b")
        let third = queues.enqueue(3, lane: "a")
        #expect(first && second, "new lanes are ready")
        #expect(!third, "a is busy: 3 waits behind 1")
        #expect(queues.unfinished == 3)

        let started = queues.start()
        let next = queues.start()
        #expect(started?.item == 1 && started?.lane == "a")
        #expect(next?.item == 2 && next?.lane == "b")
        #expect(queues.start() == nil, "3 must wait until 1 has finished")

        queues.finish("a")
        #expect(queues.start()?.item == 3)
        queues.finish("b")
        queues.finish("a")
        #expect(queues.unfinished == 0)
        #expect(queues.laneCount == 0, "idle lanes are gone")
        #expect(queues.start() == nil)
    }

    @Test func readyLanesTakeTurnsSoOneLongLaneDoesNotStarveOthers() {
        var queues = LaneQueues<String, Int>()
        for item in 0..<3 { queues.enqueue(item, lane: "long") }
        queues.enqueue(10, lane: "short")
        var order: [Int] = []
        while let (lane, item) = queues.start() {
            order.append(item)
            queues.finish(lane)
        }
        #expect(order == [0, 10, 1, 2])
    }

    @Test func manyKeysComingAndGoingLeaveNothingBehind() {
        var queues = LaneQueues<Int, Int>()
        for round in 0..<100 {
            for key in 0..<50 { queues.enqueue(round, lane: round * 50 + key) }
            while let (lane, _) = queues.start() { queues.finish(lane) }
        }
        #expect(queues.laneCount == 0)
        #expect(queues.unfinished == 0)
    }
}
