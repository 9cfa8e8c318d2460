import Foundation

/// Probabilistic early refresh (XFetch: Vattani, Chierichetti and Lowenstein, "Optimal
/// Probabilistic Cache Stampede Prevention", VLDB 2015). A read of a value that expires in `x`
/// seconds asks for a recomputation when `−δ · β · ln(u) ≥ x`, `u` uniform in (0, 1], `δ` the
/// time a recomputation takes to land: so each read's chance is `e^(−x / (δβ))`, the refresh
/// happens a few `δ` before expiry under any steady traffic, and earlier the more reads there
/// are. Pure logic: the caller passes the draw.
public struct EarlyRefresh: Sendable, Equatable {
    /// Seconds a recomputation takes to land (request, worker, write), generously.
    public let delta: Double
    /// Above 1 refreshes earlier, below later (the paper's β; 1 is optimal for its model).
    public let beta: Double

    public init(delta: Double, beta: Double = 1) {
        self.delta = delta
        self.beta = beta
    }

    /// Whether a read at `timeToExpiry` seconds before expiry, with the uniform draw `unit`
    /// (0, 1], asks for a refresh. An expired value always does.
    public func isDue(timeToExpiry: Double, unit: Double) -> Bool {
        guard timeToExpiry > 0 else { return true }
        return -delta * beta * log(max(unit, .leastNonzeroMagnitude)) >= timeToExpiry
    }

    /// The window in which a key is refreshed at most once: twice ``delta`` (a refresh that has
    /// not landed by then is asked again).
    public var window: Duration { .milliseconds(Int64(2_000 * delta)) }
}
