/// How one secondary ranking is interleaved with the live ranking (ARCHITECTURE.md §1).
public struct InterleavingConfiguration: Sendable, Hashable, Codable {
    public enum Mode: String, NamedCases, Hashable {
        /// A fixed repeating cycle of teams.
        case pattern
        /// Per round (one A and one B slot) a coin seeded by session and round picks which
        /// team goes first: for evaluating A against B without position bias.
        case teamDraft = "team_draft"
    }

    /// Global 0-based position where interleaving begins; earlier slots are A only.
    public var start: Int
    /// Most B documents placed; nil places all of B.
    public var maxDocs: Int?
    /// The repeating cycle inside the window (pattern mode).
    public var pattern: [Team]
    public var mode: Mode

    /// Validates: `start` and `maxDocs` non-negative; the pattern non-empty with both teams.
    public init(start: Int = 0, maxDocs: Int? = nil, pattern: [Team] = [.a, .b], mode: Mode = .pattern) throws(InterleavingConfigurationError) {
        guard start >= 0 else { throw .negativeStart }
        if let maxDocs, maxDocs < 0 { throw .negativeMaxDocs }
        guard pattern.contains(.a), pattern.contains(.b) else { throw .patternNeedsBothTeams }
        self.start = start
        self.maxDocs = maxDocs
        self.pattern = pattern
        self.mode = mode
    }

    /// Parses a pattern such as `AB`, `AAB` or `AAAAB`.
    public static func parsePattern(_ text: String) throws(InterleavingConfigurationError) -> [Team] {
        var teams: [Team] = []
        for character in text {
            guard let team = Team(rawValue: String(character)) else { throw .invalidPatternLetter(character) }
            teams.append(team)
        }
        guard teams.contains(.a), teams.contains(.b) else { throw .patternNeedsBothTeams }
        return teams
    }

    public var patternString: String { pattern.map(\.rawValue).joined() }

    /// How many B documents a snapshot of `bCount` documents places.
    public func placedCount(bCount: Int) -> Int {
        min(max(0, bCount), maxDocs ?? Int.max)
    }
}

public enum InterleavingConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    case negativeStart
    case negativeMaxDocs
    case patternNeedsBothTeams
    case invalidPatternLetter(Character)

    public var description: String {
        switch self {
        case .negativeStart: "start must not be negative"
        case .negativeMaxDocs: "max_docs must not be negative"
        case .patternNeedsBothTeams: "the pattern must contain both A and B"
        case .invalidPatternLetter(let letter): "the pattern may contain only A and B, not '\(letter)'"
        }
    }
}

extension InterleavingConfiguration {
    /// A hash that is stable across processes and releases (FNV-1a 64 over a canonical
    /// text), put in cursors so a page is never planned with a configuration other than
    /// the one its session started with.
    public func stableHash(ranking: String) -> UInt64 {
        let canonical = "v1|\(ranking)|\(start)|\(maxDocs.map(String.init) ?? "all")|\(patternString)|\(mode.rawValue)"
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in canonical.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }
}
