/// A value ``JSONWriter`` cannot write: JSON has no NaN or infinity.
public struct JSONWriteError: Error, Sendable, Hashable, CustomStringConvertible {
    public let description: String
}

/// Compact JSON text in the dialect `JSONEncoder` writes with `.sortedKeys` and
/// `.withoutEscapingSlashes`: object keys sorted, integral numbers without a fraction,
/// non-ASCII characters as UTF-8 (JSONWritingTests compares the two byte for byte).
///
/// A worker encodes one snapshot per request; through `JSONEncoder` its documents' display
/// fields are a large share of the worker's CPU time (generic metadata look-ups and boxing
/// per value), so values Braid stores are written here, in one pass into a byte array.
public struct JSONWriter {
    public private(set) var bytes: [UInt8] = []
    private static let hexDigits = Array("0123456789abcdef".utf8)

    public init(reservingCapacity capacity: Int = 1024) {
        bytes.reserveCapacity(capacity)
    }

    public mutating func write(_ value: JSONValue) throws(JSONWriteError) {
        switch value {
        case .null: raw("null")
        case .bool(let flag): raw(flag ? "true" : "false")
        case .number(let number):
            // Integral numbers as integers, as ``JSONValue``'s `Encodable` conformance writes them.
            if number.rounded() == number, abs(number) < 9.0e15 { write(Int64(number)) } else { try write(number) }
        case .string(let text): write(text)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                try write(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            try writeObject(members)
        }
    }

    public mutating func writeObject(_ members: [String: JSONValue]) throws(JSONWriteError) {
        bytes.append(UInt8(ascii: "{"))
        for (index, key) in members.keys.sorted().enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            write(key)
            bytes.append(UInt8(ascii: ":"))
            try write(members[key]!)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// Swift's shortest round-tripping form without a trailing `.0`, as `JSONEncoder` writes
    /// a `Double`; valid JSON for every finite value.
    public mutating func write(_ number: Double) throws(JSONWriteError) {
        guard number.isFinite else { throw JSONWriteError(description: "\(number) is not a JSON number") }
        let text = number.description
        raw(text.hasSuffix(".0") ? String(text.dropLast(2)) : text)
    }

    public mutating func write(_ integer: Int64) {
        raw(String(integer))
    }

    public mutating func write(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): raw("\\\"")
            case UInt8(ascii: "\\"): raw("\\\\")
            case 0x0A: raw("\\n")
            case 0x0D: raw("\\r")
            case 0x09: raw("\\t")
            case 0x08: raw("\\b")
            case 0x0C: raw("\\f")
            case 0..<0x20:
                raw("\\u00")
                bytes.append(Self.hexDigits[Int(byte >> 4)])
                bytes.append(Self.hexDigits[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Text that is already JSON (punctuation, literals, a member name with its quotes).
    public mutating func raw(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }
}
