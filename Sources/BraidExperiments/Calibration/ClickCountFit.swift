import Foundation

/// The goodness of fit of the fitted user model (``UserModelFit``), from the same
/// ``TrafficStatistics``: how many page-1 impressions got 0, 1, 2, 3, and 4 or more clicks,
/// against what the fitted model, simulated as the planner simulates it, predicts for pages
/// of the same slot counts.
///
/// Why this figure can find a wrong click model: the moment estimator spends its parameters on
/// positions 0 and 1 (the mean attractiveness on position 0, the persistence and satisfaction
/// on the three other patterns of clicks there, the spread on pairs of a user's sessions), so it
/// reproduces those patterns whatever the users do — a position-based user who reads position 1
/// with θ₁ after a click or not looks there like a cascade with persistence = 1 − satisfaction
/// = θ₁. Nothing below position 1 enters the fit. There the fitted cascade commits itself: it
/// reads on at the rates it fitted on position 1, rank after rank, which fixes how many results
/// a page gets clicked. Users of another model read deeper or stop sooner than that: a
/// position-based user's θ_k falls slower than θ₁ᵏ and clicks never stop her; a dependent-click
/// user's continuation after a click changes down the page. Either moves the count of clicks
/// per page, which is also what the plan's win, tie and click-through rates are made of.
///
/// It checks the whole simulated user model, not the click model alone: the simulation draws
/// every result's attractiveness from one range, so real rankings, whose better results come
/// first, get fewer deep clicks than the fitted model predicts even from cascading users. A
/// warning then says the simulation's pages are not the traffic's, which still means its plan
/// may be off.
///
/// The fit is poor when the distance exceeds ``threshold``: ``minimumThreshold``, or more on
/// few impressions, where the fitted persistence's own noise — amplified ten results down the
/// page — moves the predicted counts (``noiseAllowance``). Pearson's χ² would call every sample
/// of a few ten thousand impressions poor: it takes the fitted parameters as known.
public struct ClickCountFit: Sendable, Hashable {
    /// Total variation above which the planner warns on any sample. Chosen from simulations
    /// (ClickModelMisspecificationTests; default parameters, 10 disjoint queries): cascade
    /// traffic of the round trip's size (40,000 users of 5 sessions) stays near 0.01,
    /// position-based traffic (θ_k = 1 ÷ (k + 1)) is near 0.13 and dependent-click traffic
    /// (λ_k from 0.5 rising by 0.05 a rank) near 0.06, at any size.
    public static let minimumThreshold = 0.03
    /// c of the threshold c ÷ √n on n impressions: cascade traffic of 4,000 users (20,000
    /// impressions) reached 0.046 (c ≈ 6.5) in 8 seeds; 8 keeps such samples quiet.
    public static let noiseAllowance = 8.0

    /// Page-1 impressions counted (those whose event carries a slot count).
    public var impressions: Int
    /// Impressions with 0, 1, 2, 3, and 4 or more clicks.
    public var observed: [Int]
    /// What the fitted model predicts for them (counts, summed over the pages' slot counts).
    public var expected: [Double]
    /// ½ Σ |observed share − predicted share| over the cells: the share of impressions whose
    /// click count the model gets wrong at the least. 0 with no impression.
    public var totalVariation: Double

    /// max(``minimumThreshold``, ``noiseAllowance`` ÷ √impressions).
    public var threshold: Double { max(Self.minimumThreshold, Self.noiseAllowance / Double(max(1, impressions)).squareRoot()) }
    /// Whether the planner warns that the cascade model fits these clicks poorly.
    public var isPoor: Bool { impressions > 0 && totalVariation > threshold }

    /// `estimate`'s model against the click counts of its statistics.
    public init(_ estimate: UserModelEstimate) {
        let cells = TrafficStatistics.clickCountCells
        var observed = [Int](repeating: 0, count: cells)
        var expected = [Double](repeating: 0, count: cells)
        let model = Prediction(
            attractiveness: estimate.attractiveness, spread: estimate.propensitySpread, persistence: estimate.persistence,
            satisfaction: estimate.satisfaction)
        for (slots, counts) in estimate.statistics.clicksPerPage.sorted(by: { $0.key < $1.key }) {
            let total = counts.reduce(0, +)
            guard total > 0 else { continue }
            let shares = model.clickCounts(slots: min(slots, EventLog.clickedPositions))
            for cell in 0..<cells {
                observed[cell] += counts[cell]
                expected[cell] += Double(total) * shares[cell]
            }
        }
        let n = observed.reduce(0, +)
        self.impressions = n
        self.observed = observed
        self.expected = expected
        totalVariation = n == 0 ? 0 : zip(observed, expected).reduce(0) { $0 + abs(Double($1.0) - $1.1) } / Double(n) / 2
    }

    /// The click counts of the simulation's users: the cascade of `persistence` and
    /// `satisfaction`, every result's attractiveness drawn uniformly from `attractiveness`,
    /// times the user's log-normal propensity factor of log standard deviation `spread`, capped
    /// at 1 (``Attractiveness``, ``UserPropensity``). Given the factor f, a result read is
    /// clicked with m(f) = E[min(1, U f)] whatever came before (each result's draw is its own),
    /// so the counts follow from a walk down the page; the factor is integrated out numerically.
    struct Prediction {
        var attractiveness: ClosedRange<Double>
        var spread: Double
        var persistence: Double
        var satisfaction: Double

        /// The share of pages of `slots` results with 0, 1, 2, 3, and 4 or more clicks.
        func clickCounts(slots: Int) -> [Double] {
            let cells = TrafficStatistics.clickCountCells
            var shares = [Double](repeating: 0, count: cells)
            for (factor, weight) in Self.factors(spread: spread) {
                let click = meanAttractiveness(factor)
                var reading = [Double](repeating: 0, count: cells)
                reading[0] = 1
                for _ in 0..<slots {
                    var next = [Double](repeating: 0, count: cells)
                    for count in 0..<cells where reading[count] > 0 {
                        let clicked = reading[count] * click, skipped = reading[count] - clicked
                        let more = min(count + 1, cells - 1)
                        next[more] += clicked * (1 - satisfaction)
                        shares[more] += weight * clicked * satisfaction
                        next[count] += skipped * persistence
                        shares[count] += weight * skipped * (1 - persistence)
                    }
                    reading = next
                }
                for count in 0..<cells { shares[count] += weight * reading[count] }
            }
            return shares
        }

        /// E[min(1, U f)], U uniform on `attractiveness`.
        func meanAttractiveness(_ factor: Double) -> Double {
            let (low, high) = (attractiveness.lowerBound * factor, attractiveness.upperBound * factor)
            if high <= 1 { return (low + high) / 2 }
            if low >= 1 { return 1 }
            // Uniform on [low, high]: the part below 1 averages (low + 1) / 2, the rest is capped at 1.
            let below = (1 - low) / (high - low)
            return below * (low + 1) / 2 + (1 - below)
        }

        /// Nodes and weights of the log-normal factor f = exp(σZ − σ²/2): the midpoint rule on
        /// Z over ±8 standard deviations, weights normalized (1 node, f = 1, at σ = 0).
        static func factors(spread: Double) -> [(factor: Double, weight: Double)] {
            guard spread > 0 else { return [(1, 1)] }
            let nodes = 321, width = 16.0 / Double(nodes)
            let raw = (0..<nodes).map { i -> (Double, Double) in
                let z = -8 + (Double(i) + 0.5) * width
                return (exp(spread * z - spread * spread / 2), exp(-z * z / 2))
            }
            let total = raw.reduce(0) { $0 + $1.1 }
            return raw.map { ($0.0, $0.1 / total) }
        }
    }
}

extension UserModelEstimate {
    /// How well the fitted model predicts the click counts per page it was not fitted on (``ClickCountFit``).
    public var goodnessOfFit: ClickCountFit { ClickCountFit(self) }
}
