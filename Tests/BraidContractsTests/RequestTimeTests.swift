import BraidContracts
import BraidCore
import Foundation
import Testing

@Suite("request times on the wire")
struct RequestTimeTests {
    /// Times on a half millisecond, found by a search over random times: rounding the wire time
    /// and the version two different ways makes their version come out 1 ms lower after the
    /// wire, so the worker's snapshot would not have the version its publisher computed.
    @Test(arguments: [
        1_795_377_600.0, 1_795_377_600.001, 1_795_377_600.874, 1_795_377_600.999, 1_795_377_600.1234, 1_795_377_600.9996,
        1_763_969_689.4175, 1_763_923_028.8125, 1_763_972_332.4835, 1_763_976_432.3425, 1_763_956_515.6525,
    ])
    func aTimeSurvivesRepeatedRoundTripsAtMillisecondPrecision(seconds: Double) throws {
        let original = PrecomputeRequest(
            body: .ranking(.init(ranking: "featured", query: "x")), requestedAt: Date(timeIntervalSince1970: seconds))
        let once = try PrecomputeRequest.decode(original.encoded())
        let twice = try PrecomputeRequest.decode(once.encoded())
        #expect(once == twice)
        #expect(RankingSnapshot.version(for: once.requestedAt) == RankingSnapshot.version(for: original.requestedAt))
    }

    /// The snapshot version a publisher computes from its request equals the worker's, which
    /// reads the time from the wire, for any time (here 5,000 random ones).
    @Test func theVersionOfARequestIsTheSameOnBothSidesOfTheWire() throws {
        var generator = SystemRandomNumberGenerator()
        var differing: [Double] = []
        for _ in 0..<5_000 {
            let seconds = 1_763_900_000 + Double.random(in: 0..<100_000, using: &generator)
            let original = PrecomputeRequest(body: .ranking(.init(ranking: "featured", query: "x")), requestedAt: Date(timeIntervalSince1970: seconds))
            let decoded = try PrecomputeRequest.decode(original.encoded())
            if RankingSnapshot.version(for: decoded.requestedAt) != RankingSnapshot.version(for: original.requestedAt) { differing.append(seconds) }
        }
        #expect(differing.isEmpty, "versions differ after the wire for \(differing.prefix(5))")
    }
}
