/// A closed set of values written as names (configuration values, wire enums). Decoding an
/// unknown name fails with a message that lists the allowed ones, so a typo in a
/// configuration file is reported with the key, the value and what would have been valid.
public protocol NamedCases: RawRepresentable, CaseIterable, Codable, Sendable where RawValue == String {}

extension NamedCases {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let name = try container.decode(String.self)
        guard let value = Self(rawValue: name) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: Self.unknown(name))
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// The allowed names, comma-separated, in declaration order.
    public static var allowedNames: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// `must be one of a, b, c, not 'x'`.
    public static func unknown(_ name: String) -> String {
        "must be one of \(allowedNames), not '\(name)'"
    }
}
