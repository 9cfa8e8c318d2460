/// Which ranking a slot of the interleaved list comes from: A is the live ranking (with
/// B's placed documents excluded), B the cached secondary ranking.
public enum Team: String, Sendable, Hashable, Codable, CaseIterable {
    case a = "A"
    case b = "B"

    public var other: Team { self == .a ? .b : .a }
}
