import BraidCore

/// A time option written as a whole number of `Unit`s, held as a `Duration` so code never
/// multiplies units by hand.
///
/// The key keeps its unit suffix (the section's `CodingKeys` maps `liveTimeout` to
/// `live_timeout_ms`), so files and variables written before the options were typed still work.
@propertyWrapper
public struct WholeDuration<Unit: DurationUnit>: Codable, Sendable, Hashable {
    public var wrappedValue: Duration

    public init(wrappedValue: Duration) {
        self.wrappedValue = wrappedValue
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let value = try container.decode(Double.self)
        guard value.rounded() == value, abs(value) < 9e15 else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "must be a whole number of \(Unit.name), not \(value)")
        }
        wrappedValue = Unit.duration(Int64(value))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Unit.count(wrappedValue))
    }
}

/// The unit a ``WholeDuration`` is written in.
public protocol DurationUnit: Sendable {
    static var name: String { get }
    static func duration(_ count: Int64) -> Duration
    static func count(_ duration: Duration) -> Int64
}

/// `*_ms` keys and `BRAID_*_MS` variables.
public enum MillisecondUnit: DurationUnit {
    public static let name = "milliseconds"
    public static func duration(_ count: Int64) -> Duration { .milliseconds(count) }
    public static func count(_ duration: Duration) -> Int64 { duration.wholeMilliseconds }
}

/// `*_seconds` keys and `BRAID_*_SECONDS` variables.
public enum SecondUnit: DurationUnit {
    public static let name = "seconds"
    public static func duration(_ count: Int64) -> Duration { .seconds(count) }
    public static func count(_ duration: Duration) -> Int64 { duration.wholeSeconds }
}

/// A time option in whole milliseconds.
public typealias Milliseconds = WholeDuration<MillisecondUnit>
/// A time option in whole seconds.
public typealias Seconds = WholeDuration<SecondUnit>
