/// A cascade click model with position bias (after the dependent click model of Guo, Liu and
/// Wang, WSDM 2009, with one continuation for every rank and a persistence below 1; the DCM
/// itself is ``DependentClickModel``): the user reads a page from the top, one result at a
/// time. A result she reads is clicked with its attractiveness; after a click she is satisfied
/// and leaves with probability `satisfaction`, otherwise reads on; after a result she did not
/// click she reads on with probability `persistence`. Lower results are therefore read less
/// often (position bias), and a good result high up hides the ones below it. The planner's
/// fit (``UserModelFit``) assumes this model.
public struct CascadeClickModel: Sendable, Hashable {
    /// P(read the next result | this one was not clicked).
    public var persistence: Double
    /// P(leave | clicked).
    public var satisfaction: Double

    public init(persistence: Double, satisfaction: Double) {
        self.persistence = persistence
        self.satisfaction = satisfaction
    }

    /// Positions clicked (0-based, increasing) on a page whose results have these
    /// attractiveness values, top first.
    public func clicks(attractiveness: [Double], using random: inout SimulationRandom) -> [Int] {
        var clicked: [Int] = []
        for (position, probability) in attractiveness.enumerated() {
            if random.unit() < probability {
                clicked.append(position)
                if random.unit() < satisfaction { break }
            } else if random.unit() >= persistence {
                break
            }
        }
        return clicked
    }
}

/// How attractive one result is to one user: a draw from `range` (per session and result, so
/// no document is better than another by chance of the seed), times `1 + margin` when the
/// document belongs to the preferred ranking, times the user's ``UserPropensity`` factor,
/// at most 1.
public struct Attractiveness: Sendable, Hashable {
    public var range: ClosedRange<Double>
    public var margin: Double

    public init(range: ClosedRange<Double>, margin: Double) {
        self.range = range
        self.margin = margin
    }

    public func draw(preferred: Bool, propensity: Double = 1, using random: inout SimulationRandom) -> Double {
        let base = (range.lowerBound + (range.upperBound - range.lowerBound) * random.unit()) * propensity
        return preferred ? min(1, base * (1 + margin)) : min(1, base)
    }
}
