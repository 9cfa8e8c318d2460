import Foundation

/// How much more (or less) one user clicks than the average user: a factor on every result's
/// attractiveness for all of her sessions, drawn once per user from a log-normal distribution
/// with mean 1 and log standard deviation `spread` (0: every user alike, the factor 1 and no
/// draw). A log-normal because per-user activity and click rates are skewed, a few users
/// clicking far more than most; mean 1 so the spread changes who clicks, not how much the
/// average user would.
public struct UserPropensity: Sendable, Hashable {
    public var spread: Double

    public init(spread: Double) {
        self.spread = spread
    }

    /// exp(spread · Z − spread²/2), Z standard normal (Box–Muller); 1 without drawing when the
    /// spread is 0, so identical users consume exactly the random numbers of the homogeneous
    /// model of independent sessions.
    public func draw(using random: inout SimulationRandom) -> Double {
        guard spread > 0 else { return 1 }
        let radius = (-2 * log(1 - random.unit())).squareRoot()
        let z = radius * cos(2 * Double.pi * random.unit())
        return exp(spread * z - spread * spread / 2)
    }
}
