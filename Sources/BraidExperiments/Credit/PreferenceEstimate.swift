import Foundation

/// How strongly users prefer the second ranking of a comparison over the first:
/// Δ = (wins_B − wins_A) / (wins_A + wins_B + ties), between −1 (A always wins) and 1 (B always
/// wins), with a 95 % confidence interval — so a team sees the size of an effect, not only
/// whether it is significant.
///
/// Every impression is one draw of a three-way outcome (A wins, B wins, tie), so Δ is a
/// difference of two proportions of one multinomial sample, the same quantity as the
/// difference of discordant pairs in paired binary data. The interval is Bonett and Price's
/// adjusted Wald interval for that difference (Journal of Educational and Behavioral
/// Statistics 37(4), 2012): add one pseudo-win to each side and two impressions, then
/// `d̃ ± z·√((p̃_A + p̃_B − d̃²) / (n + 2))` with `p̃_X = (wins_X + 1) / (n + 2)`, `d̃ = p̃_B − p̃_A`,
/// clamped to [−1, 1]. Why this one: it is closed-form (no bootstrap, cheap enough for every
/// `GET /v1/experiments` call), keeps close to its nominal coverage at small samples where the
/// plain Wald interval collapses to zero width (e.g. 3 wins of B and nothing else), and
/// becomes the plain Wald interval as n grows.
public struct PreferenceEstimate: Sendable, Hashable, Codable {
    /// Δ itself, (wins_B − wins_A) / n; 0 with no impressions.
    public var delta: Double
    public var lower: Double
    public var upper: Double

    public init(delta: Double, lower: Double, upper: Double) {
        self.delta = delta
        self.lower = lower
        self.upper = upper
    }

    /// z of a two-sided 95 % interval: the 0.975 quantile of the standard normal.
    public static let z95 = 1.959_963_984_540_054

    public init(winsA: Int, winsB: Int, ties: Int, z: Double = PreferenceEstimate.z95) {
        let winsA = max(0, winsA)
        let winsB = max(0, winsB)
        let n = Double(winsA + winsB + max(0, ties))
        delta = n > 0 ? Double(winsB - winsA) / n : 0
        let adjustedA = (Double(winsA) + 1) / (n + 2)
        let adjustedB = (Double(winsB) + 1) / (n + 2)
        let center = adjustedB - adjustedA
        let halfWidth = z * (max(0, adjustedA + adjustedB - center * center) / (n + 2)).squareRoot()
        lower = max(-1, center - halfWidth)
        upper = min(1, center + halfWidth)
    }

    enum CodingKeys: String, CodingKey {
        case delta
        case lower = "ci_lower"
        case upper = "ci_upper"
    }
}

/// The outcome of comparing two teams over many impressions: wins, ties, the sign test and
/// the preference Δ. For two-ranking interleaving A is the live ranking and B the cached one;
/// for a pair of a multileave, A is the pair's first team and B its second.
public struct PreferenceOutcome: Sendable, Hashable {
    public var winsA: Int
    public var winsB: Int
    public var ties: Int

    public init(winsA: Int, winsB: Int, ties: Int) {
        self.winsA = winsA
        self.winsB = winsB
        self.ties = ties
    }

    /// Impressions that compared the two teams (every credited impression is a win or a tie).
    public var impressions: Int { winsA + winsB + ties }
    /// Two-sided sign test over wins (ties excluded); 1 with no wins.
    public var pValue: Double { SignTest.twoSidedPValue(winsA: winsA, winsB: winsB) }
    public var preference: PreferenceEstimate { PreferenceEstimate(winsA: winsA, winsB: winsB, ties: ties) }

    public mutating func record(_ outcome: TeamDraftOutcome) {
        switch outcome {
        case .winA: winsA += 1
        case .winB: winsB += 1
        case .tie: ties += 1
        }
    }
}
