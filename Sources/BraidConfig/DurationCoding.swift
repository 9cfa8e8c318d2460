import BraidCore

/// A time option written in whole milliseconds (`*_ms` keys and `BRAID_*_MS` variables),
/// held as a `Duration` so code never multiplies units by hand.
///
/// The key keeps its unit suffix (the section's `CodingKeys` maps `liveTimeout` to
/// `live_timeout_ms`), so files and variables written before the options were typed still work.
@propertyWrapper
public struct Milliseconds: Codable, Sendable, Hashable {
    public var wrappedValue: Duration

    public init(wrappedValue: Duration) {
        self.wrappedValue = wrappedValue
    }

    public init(from decoder: any Decoder) throws {
        wrappedValue = .milliseconds(try wholeNumber(decoder, unit: "milliseconds"))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue.wholeMilliseconds)
    }
}

/// A time option written in whole seconds (`*_seconds` keys); see ``Milliseconds``.
@propertyWrapper
public struct Seconds: Codable, Sendable, Hashable {
    public var wrappedValue: Duration

    public init(wrappedValue: Duration) {
        self.wrappedValue = wrappedValue
    }

    public init(from decoder: any Decoder) throws {
        wrappedValue = .seconds(try wholeNumber(decoder, unit: "seconds"))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue.wholeSeconds)
    }
}

/// A time option's value: a whole number, refused otherwise with the key in the error's path.
private func wholeNumber(_ decoder: any Decoder, unit: String) throws -> Int64 {
    let container = try decoder.singleValueContainer()
    let value = try container.decode(Double.self)
    guard value.rounded() == value, abs(value) < 9e15 else {
        throw DecodingError.dataCorruptedError(in: container, debugDescription: "must be a whole number of \(unit), not \(value)")
    }
    return Int64(value)
}
