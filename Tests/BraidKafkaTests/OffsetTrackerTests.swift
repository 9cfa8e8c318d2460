import BraidKafka
import Testing

/// The commit rule, without a broker: the position is always the lowest offset not finished.
@Suite("Offset tracker")
struct OffsetTrackerTests {
    @Test func thePositionIsTheLowestUnfinishedOffsetWhateverTheFinishingOrder() {
        var tracker = OffsetTracker()
        for offset in Int64(10)..<15 { tracker.handedOut(offset) }
        #expect(tracker.inFlight == 5)
        // 12, 14 and 13 finish before 10 and 11: nothing may be committed past 10.
        let early = [tracker.finished(12), tracker.finished(14), tracker.finished(13)]
        #expect(early == [nil, nil, nil])
        #expect(tracker.position == nil)
        let late = [tracker.finished(10), tracker.finished(11)]
        #expect(late == [11, 15])
        #expect(tracker.position == 15)
        #expect(tracker.inFlight == 0)
        #expect(tracker.pending == 0)
    }

    @Test func gapsInOffsetsAreSteppedOver() {
        var tracker = OffsetTracker()
        for offset: Int64 in [3, 5, 9] { tracker.handedOut(offset) }
        // 3 done, 5 still running: the next message to read is 5, not 4.
        let positions = [tracker.finished(3), tracker.finished(9), tracker.finished(5)]
        #expect(positions == [5, nil, 10])
    }

    @Test func anAbandonedOffsetIsNeverPassedButNoLongerInFlight() {
        var tracker = OffsetTracker()
        for offset in Int64(0)..<4 { tracker.handedOut(offset) }
        tracker.abandoned(1)
        #expect(tracker.inFlight == 3)
        let positions = [tracker.finished(0), tracker.finished(2), tracker.finished(3)]
        #expect(positions == [1, nil, nil])
        #expect(tracker.position == 1)
        #expect(tracker.inFlight == 0)
        #expect(tracker.pending == 3)
        #expect(tracker.state(of: 1) == .abandoned)
    }

    @Test func finishingTwiceOrAnUnknownOffsetChangesNothing() {
        var tracker = OffsetTracker()
        tracker.handedOut(7)
        tracker.handedOut(8)
        let repeated = [tracker.finished(8), tracker.finished(8), tracker.finished(42)]
        #expect(repeated == [nil, nil, nil])
        #expect(tracker.inFlight == 1)
        tracker.abandoned(8)  // already finished: stays finished
        let last = tracker.finished(7)
        #expect(last == 9)
    }
}
