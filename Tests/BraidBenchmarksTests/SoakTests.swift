@testable import BraidBenchmarks
import Testing

@Suite("Soak arithmetic")
struct SoakTests {
    @Test func theGrowthRateIsTheLeastSquaresSlopePerHour() {
        // 1 MiB a minute, with noise that cancels out: 60 MiB an hour.
        let points: [(Double, Double)] = (0..<30).map { (minute: Int) -> (Double, Double) in
            let noise: Double = minute % 2 == 0 ? 0.5 : -0.5
            return (Double(minute * 60), 100 + Double(minute) + noise)
        }
        #expect(abs(SoakGroup.slopePerHour(points) - 60) < 1)
        #expect(SoakGroup.slopePerHour([(0, 5), (60, 5), (120, 5)]) == 0)
        #expect(SoakGroup.slopePerHour([(0, 5)]) == 0)
    }

    @Test func stalenessPercentilesAreNearestRank() {
        let values = (1...1_000).map(Double.init)
        #expect(TrackingStaleness.percentile(values, 0.50) == 500)
        #expect(TrackingStaleness.percentile(values, 0.99) == 990)
        #expect(TrackingStaleness.percentile([], 0.99) == 0)
        #expect(TrackingStaleness.milliseconds(.microseconds(1_500)) == 1.5)
    }
}
