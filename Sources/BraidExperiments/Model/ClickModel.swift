import Foundation

/// How a simulated user clicks one page: the positions she clicks (0-based, increasing) on a
/// page whose results have these attractiveness values, top first. ``SessionSimulator`` asks
/// it once per page; every draw comes from `random`, so a session is a pure function of its stream.
public protocol ClickModel: Sendable {
    func clicks(attractiveness: [Double], using random: inout SimulationRandom) -> [Int]
}

extension CascadeClickModel: ClickModel {}

/// The position-based model (PBM; Craswell et al., WSDM 2008, as a baseline): a result at
/// position k is examined with probability θ_k, whatever happened above it, and an examined
/// result is clicked with its attractiveness. Clicks on one page are independent of each
/// other: a click does not end the reading, and a skipped result does not make the next one
/// less likely to be read. Its position bias is the decreasing θ_k alone.
public struct PositionBasedClickModel: Sendable, Hashable {
    /// θ_k: P(position k is examined), top first; positions past the end use the last value.
    public var examination: [Double]

    public init(examination: [Double]) {
        self.examination = examination
    }

    /// θ_k = 1 ÷ (k + 1)^`decay`: position 0 always read, the usual reciprocal-rank decline at decay 1.
    public init(decay: Double, positions: Int = 10) {
        examination = (0..<max(1, positions)).map { 1 / pow(Double($0 + 1), decay) }
    }

    public func examination(at position: Int) -> Double {
        examination.isEmpty ? 1 : examination[min(position, examination.count - 1)]
    }

    /// One draw per position: clicked iff examined and attracted, P = θ_k · a_k.
    public func clicks(attractiveness: [Double], using random: inout SimulationRandom) -> [Int] {
        var clicked: [Int] = []
        for (position, probability) in attractiveness.enumerated() where random.unit() < examination(at: position) * probability {
            clicked.append(position)
        }
        return clicked
    }
}

extension PositionBasedClickModel: ClickModel {}

/// The dependent click model (DCM; Guo, Liu and Wang, WSDM 2009): the user reads the page from
/// the top, one result at a time, and clicks a result she reads with its attractiveness. After
/// a click at position k she reads on with probability λ_k (the rank's own continuation), else
/// she is done; after a result she did not click she always reads on. ``CascadeClickModel``
/// is the DCM with one λ for every rank (1 − satisfaction) and persistence 1; the DCM's λ_k
/// may change down the page, which the cascade's two parameters cannot follow.
public struct DependentClickModel: Sendable, Hashable {
    /// λ_k: P(read on | clicked position k), top first; positions past the end use the last value.
    public var continuation: [Double]

    public init(continuation: [Double]) {
        self.continuation = continuation
    }

    public func continuation(at position: Int) -> Double {
        continuation.isEmpty ? 0 : continuation[min(position, continuation.count - 1)]
    }

    public func clicks(attractiveness: [Double], using random: inout SimulationRandom) -> [Int] {
        var clicked: [Int] = []
        for (position, probability) in attractiveness.enumerated() where random.unit() < probability {
            clicked.append(position)
            if random.unit() >= continuation(at: position) { break }
        }
        return clicked
    }
}

extension DependentClickModel: ClickModel {}

/// Which click model the simulated users follow (``SensitivityParameters/clickModel``): the
/// cascade of the parameters' `persistence` and `satisfaction` (the planner's model and the
/// default), or a model the planner does not assume, to see how its plan fares on users of
/// another kind.
public enum SimulatedClickModel: Sendable, Hashable {
    case cascade
    case positionBased(PositionBasedClickModel)
    case dependent(DependentClickModel)

    /// The model's name on the command line and in messages.
    public var name: String {
        switch self {
        case .cascade: "cascade"
        case .positionBased: "pbm"
        case .dependent: "dcm"
        }
    }

    /// The position-based and dependent models: at least one probability, every one in [0, 1]
    /// (the cascade's two are checked with the parameters).
    var isValid: Bool {
        func valid(_ values: [Double]) -> Bool { !values.isEmpty && values.allSatisfy { (0...1).contains($0) } }
        return switch self {
        case .cascade: true
        case .positionBased(let model): valid(model.examination)
        case .dependent(let model): valid(model.continuation)
        }
    }
}
