import BraidCore
import Foundation
import Testing

@Suite("request times on the wire")
struct RequestTimeTests {
    @Test(arguments: [0.0, 0.001, 0.874, 0.999, 0.1234, 0.9996])
    func aTimeSurvivesRepeatedRoundTripsAtMillisecondPrecision(fraction: Double) throws {
        let original = PrecomputeRequest(
            body: .ranking(.init(ranking: "featured", query: "x")),
            requestedAt: Date(timeIntervalSince1970: 1_795_377_600 + fraction))
        let once = try PrecomputeRequest.decode(original.encoded())
        let twice = try PrecomputeRequest.decode(once.encoded())
        #expect(once == twice)
        #expect(RankingSnapshot.version(for: once.requestedAt) == RankingSnapshot.version(for: original.requestedAt))
    }
}
