import BraidCore

/// The sequential definition of the interleaved list (as ``PagePlanner`` states it), walking
/// from position 0: the reference the closed-form planner must agree with exactly.
public struct SequentialPlanner {
    public let configuration: InterleavingConfiguration
    public let bCount: Int
    public let aTotal: Int
    public let seed: UInt64

    public init(configuration: InterleavingConfiguration, bCount: Int, aTotal: Int, seed: UInt64) {
        self.configuration = configuration
        self.bCount = bCount
        self.aTotal = aTotal
        self.seed = seed
    }

    public func walk(limit: Int) -> [PlannedSlot] {
        let m = configuration.placedCount(bCount: bCount)
        var slots: [PlannedSlot] = []
        var aUsed = 0, bUsed = 0, p = 0
        while p < limit {
            let team: Team
            if aUsed == aTotal {
                guard bUsed < m else { break }
                team = .b
            } else if bUsed == m {
                team = .a
            } else if p < configuration.start {
                team = .a
            } else {
                let k = p - configuration.start
                switch configuration.mode {
                case .pattern: team = configuration.pattern[k % configuration.pattern.count]
                case .teamDraft:
                    let first = TeamDraft.firstTeam(seed: seed, round: k / 2)
                    team = k % 2 == 0 ? first : first.other
                }
            }
            if team == .a {
                slots.append(PlannedSlot(position: p, team: .a, index: aUsed)); aUsed += 1
            } else {
                slots.append(PlannedSlot(position: p, team: .b, index: bUsed)); bUsed += 1
            }
            p += 1
        }
        return slots
    }
}

public struct RandomCase: CustomStringConvertible {
    public var configuration: InterleavingConfiguration
    public var bCount: Int
    public var aTotal: Int
    public var seed: UInt64

    public init(configuration: InterleavingConfiguration, bCount: Int, aTotal: Int, seed: UInt64) {
        self.configuration = configuration
        self.bCount = bCount
        self.aTotal = aTotal
        self.seed = seed
    }

    public var description: String {
        "start=\(configuration.start) max_docs=\(configuration.maxDocs.map(String.init) ?? "nil") pattern=\(configuration.patternString) mode=\(configuration.mode.rawValue) |B|=\(bCount) T=\(aTotal) seed=\(seed)"
    }

    public var planner: PagePlanner { PagePlanner(configuration: configuration, bCount: bCount, aTotal: aTotal, seed: seed) }
    public var reference: SequentialPlanner { SequentialPlanner(configuration: configuration, bCount: bCount, aTotal: aTotal, seed: seed) }

    public static func random(using rng: inout SeededGenerator) -> RandomCase {
        let length = Int.random(in: 2...6, using: &rng)
        var pattern = (0..<length).map { _ in Bool.random(using: &rng) ? Team.a : Team.b }
        pattern[Int.random(in: 0..<length, using: &rng)] = .a
        if !pattern.contains(.b) { pattern[(pattern.firstIndex(of: .a)! + 1) % length] = .b }
        if !pattern.contains(.a) { pattern[0] = .a }
        let configuration = try! InterleavingConfiguration(
            start: Int.random(in: 0...20, using: &rng),
            maxDocs: Bool.random(using: &rng) ? nil : Int.random(in: 0...60, using: &rng),
            pattern: pattern,
            mode: Int.random(in: 0..<3, using: &rng) == 0 ? .teamDraft : .pattern)
        return RandomCase(
            configuration: configuration, bCount: Int.random(in: 0...50, using: &rng),
            aTotal: Int.random(in: 0...200, using: &rng), seed: rng.next())
    }
}
