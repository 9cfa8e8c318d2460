import BraidExperiments
import Foundation
import Testing

@Suite("click model and random streams")
struct ClickModelTests {
    @Test func extremeParametersGiveTheObviousClicks() {
        var random = SimulationRandom(seed: 1)
        let page = [Double](repeating: 1, count: 6)
        #expect(CascadeClickModel(persistence: 1, satisfaction: 0).clicks(attractiveness: page, using: &random) == Array(0..<6))
        #expect(CascadeClickModel(persistence: 1, satisfaction: 1).clicks(attractiveness: page, using: &random) == [0])
        #expect(CascadeClickModel(persistence: 1, satisfaction: 0).clicks(attractiveness: [0, 0, 0], using: &random).isEmpty)
        #expect(CascadeClickModel(persistence: 0, satisfaction: 0).clicks(attractiveness: [0, 1, 1], using: &random).isEmpty)
    }

    /// The cascade's position bias: with attractiveness a and persistence γ, and the user
    /// leaving after her first click, the first click is at position i with probability
    /// ((1 − a)γ)ⁱ · a.
    @Test func firstClicksFollowTheCascadeLaw() {
        let model = CascadeClickModel(persistence: 0.8, satisfaction: 1)
        let a = 0.3
        var random = SimulationRandom(seed: 2)
        var counts = [Int](repeating: 0, count: 8)
        let sessions = 200_000
        for _ in 0..<sessions {
            if let first = model.clicks(attractiveness: [Double](repeating: a, count: 8), using: &random).first { counts[first] += 1 }
        }
        for i in 0..<5 {
            let expected = Double(sessions) * pow((1 - a) * 0.8, i) * a
            // Five standard deviations of a binomial count.
            #expect(abs(Double(counts[i]) - expected) < 5 * expected.squareRoot(), "position \(i): \(counts[i]) vs \(expected)")
        }
    }

    @Test func attractivenessIsBoostedForThePreferredRankingAndCapped() {
        var random = SimulationRandom(seed: 3)
        let plain = Attractiveness(range: 0.2...0.2, margin: 0.5)
        #expect(plain.draw(preferred: false, using: &random) == 0.2)
        #expect(abs(plain.draw(preferred: true, using: &random) - 0.3) < 1e-12)
        #expect(Attractiveness(range: 0.9...0.9, margin: 1).draw(preferred: true, using: &random) == 1)
        let spread = Attractiveness(range: 0.1...0.4, margin: 0)
        let draws = (0..<10_000).map { _ in spread.draw(preferred: false, using: &random) }
        #expect(draws.allSatisfy { (0.1...0.4).contains($0) })
        #expect(abs(draws.reduce(0, +) / 10_000 - 0.25) < 0.005)
    }

    @Test func propensityIsLogNormalWithMeanOneAndTheGivenSpread() {
        var random = SimulationRandom(seed: 5)
        let untouched = random
        #expect(UserPropensity(spread: 0).draw(using: &random) == 1)
        #expect(random.next() == { var copy = untouched; return copy.next() }(), "spread 0 draws nothing")
        for spread in [0.5, 1.0] {
            let draws = (0..<200_000).map { _ in UserPropensity(spread: spread).draw(using: &random) }
            #expect(draws.allSatisfy { $0 > 0 })
            let mean = draws.reduce(0, +) / Double(draws.count)
            let logs = draws.map { log($0) }
            let logMean = logs.reduce(0, +) / Double(logs.count)
            let logSD = (logs.map { ($0 - logMean) * ($0 - logMean) }.reduce(0, +) / Double(logs.count)).squareRoot()
            // Mean 1 (its standard error is below 0.003 at spread 1), log-mean −σ²/2, log-sd σ.
            #expect(abs(mean - 1) < 0.015, "spread \(spread): mean \(mean)")
            #expect(abs(logMean + spread * spread / 2) < 0.01 && abs(logSD - spread) < 0.01, "spread \(spread): \(logMean), \(logSD)")
        }
        let plain = Attractiveness(range: 0.2...0.2, margin: 0.5)
        #expect(abs(plain.draw(preferred: false, propensity: 2, using: &random) - 0.4) < 1e-12)
        #expect(abs(plain.draw(preferred: true, propensity: 0.5, using: &random) - 0.15) < 1e-12)
        #expect(plain.draw(preferred: false, propensity: 10, using: &random) == 1, "capped at 1")
    }

    @Test func streamsAreDeterministicAndIndependent() {
        var first = SimulationRandom(seed: 9, stream: 1, index: 5)
        var again = SimulationRandom(seed: 9, stream: 1, index: 5)
        let drawn = (0..<100).map { _ in first.next() }
        #expect(drawn == (0..<100).map { _ in again.next() })
        for other in [SimulationRandom(seed: 9, stream: 1, index: 6), SimulationRandom(seed: 9, stream: 2, index: 5), SimulationRandom(seed: 10, stream: 1, index: 5)] {
            var other = other
            #expect(drawn != (0..<100).map { _ in other.next() })
        }
        var random = SimulationRandom(seed: 4)
        var buckets = [Int](repeating: 0, count: 7)
        for _ in 0..<70_000 { buckets[random.below(7)] += 1 }
        #expect(buckets.allSatisfy { (9_500...10_500).contains($0) }, "\(buckets)")
        #expect((0..<10_000).allSatisfy { _ in (0..<1).contains(random.unit()) })
    }
}

private func pow(_ base: Double, _ exponent: Int) -> Double {
    (0..<exponent).reduce(1) { product, _ in product * base }
}
