@testable import BraidGateway
import Testing

@Suite("Sample ring and counter rates")
struct SampleRingTests {
    @Test("Keeps the last capacity samples, oldest first, across many wraps")
    func keepsTheNewest() {
        var ring = SampleRing<Int>(capacity: 3)
        #expect(ring.isEmpty && ring.elements.isEmpty && ring.last == nil)
        ring.append(1)
        ring.append(2)
        #expect(ring.elements == [1, 2])
        #expect(ring.last == 2)
        for value in 3...10 { ring.append(value) }
        #expect(ring.elements == [8, 9, 10])
        #expect(ring.count == 3)
        #expect(ring.last == 10)
        ring.append(11)
        #expect(ring.elements == [9, 10, 11])
    }

    @Test("A ring of one holds the newest sample")
    func capacityOne() {
        var ring = SampleRing<String>(capacity: 1)
        ring.append("a")
        ring.append("b")
        #expect(ring.elements == ["b"])
    }

    @Test("Rates are the difference over the time between readings; none for a reset or out of order")
    func rates() {
        #expect(CounterRate.perSecond(from: (100, 10), to: (160, 12)) == 30)
        #expect(CounterRate.perSecond(from: (100, 10), to: (100, 11)) == 0)
        #expect(CounterRate.perSecond(from: (100, 10), to: (40, 12)) == nil)
        #expect(CounterRate.perSecond(from: (100, 10), to: (160, 10)) == nil)
        #expect(CounterRate.perSecond(from: (100, 12), to: (160, 10)) == nil)
    }
}
