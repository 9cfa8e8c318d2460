import Foundation

/// JSON text that ``JSONValue/parse(_:)`` refuses, with the byte offset where it went wrong.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    public let offset: Int
    public let reason: String

    public var description: String { "invalid JSON at byte \(offset): \(reason)" }
}

extension JSONValue {
    /// Parses one JSON text (RFC 8259: one value, optional whitespace around it, UTF-8).
    ///
    /// The gateway reads a stored snapshot on every page the near-cache cannot answer;
    /// `JSONDecoder` spends most of that time in the failed `try?` attempts of
    /// ``JSONValue/init(from:)`` (a decoder cannot say a value's type without trying), so
    /// values that are JSONValue trees are parsed here instead, in one pass over the bytes.
    public static func parse(_ data: Data) throws(JSONParseError) -> JSONValue {
        let result = data.withUnsafeBytes { bytes in Result { () throws(JSONParseError) in try parse(bytes) } }
        return try result.get()
    }

    /// The same, refusing an object that repeats a member name: for texts whose meaning must
    /// not depend on which of two values a reader keeps (the header and claims of a JWT).
    public static func parseRefusingDuplicateKeys(_ data: Data) throws(JSONParseError) -> JSONValue {
        let result = data.withUnsafeBytes { bytes in Result { () throws(JSONParseError) in try parse(bytes, refusingDuplicateKeys: true) } }
        return try result.get()
    }

    /// The same, over bytes in memory.
    public static func parse(_ bytes: UnsafeRawBufferPointer, refusingDuplicateKeys: Bool = false) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        parser.refusesDuplicateKeys = refusingDuplicateKeys
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.error("unexpected bytes after the value") }
        return value
    }
}

/// A recursive-descent parser over UTF-8 bytes: strict (no trailing commas, no comments, no
/// leading zeros, no unescaped control characters, valid UTF-8) and bounded in depth, so a
/// hostile value cannot exhaust the stack.
package struct JSONParser {
    static let maxDepth = 256

    let bytes: UnsafeRawBufferPointer
    package var index = 0
    /// Whether an object repeating a member name is an error (otherwise the last value wins).
    var refusesDuplicateKeys = false

    package init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    package func error(_ reason: String) -> JSONParseError {
        JSONParseError(offset: index, reason: reason)
    }

    package var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    package mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    package mutating func value(depth: Int) throws(JSONParseError) -> JSONValue {
        guard let byte = current else { throw error("the text ends where a value should start") }
        switch byte {
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw error("unexpected character '\(Unicode.Scalar(byte))'")
        }
    }

    mutating func object(depth: Int) throws(JSONParseError) -> JSONValue {
        // Members are collected first and hashed into a dictionary of the right size once:
        // growing it member by member would rehash every key at each doubling.
        var members: [(String, JSONValue)] = []
        try eachMember(depth: depth) { parser, key throws(JSONParseError) in
            members.append((key, try parser.value(depth: depth)))
        }
        if refusesDuplicateKeys {
            var seen = Set<String>()
            for (key, _) in members where !seen.insert(key).inserted { throw error("the member name '\(key.prefix(64))' appears twice") }
        }
        // A repeated key keeps its last value.
        return .object(members.isEmpty ? [:] : Dictionary(members, uniquingKeysWith: { _, last in last }))
    }

    mutating func array(depth: Int) throws(JSONParseError) -> JSONValue {
        var elements: [JSONValue] = []
        try eachElement(depth: depth) { parser throws(JSONParseError) in elements.append(try parser.value(depth: depth)) }
        return .array(elements)
    }

    /// Walks the object at `{` (at nesting `depth`), handing each key to `member`, which
    /// must read or skip exactly one value. Without `keys`, keys are checked but not made
    /// into Strings (`member` is given empty ones).
    package mutating func eachMember(
        depth: Int, keys: Bool = true, _ member: (inout JSONParser, String) throws(JSONParseError) -> Void
    ) throws(JSONParseError) {
        guard depth <= Self.maxDepth else { throw error("nested deeper than \(Self.maxDepth)") }
        index += 1  // {
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return
        }
        while true {
            guard current == UInt8(ascii: "\"") else { throw error("an object key must be a string") }
            let key: String
            if keys {
                key = try string()
            } else {
                try skipString()
                key = ""
            }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("expected ':' after an object key") }
            index += 1
            skipWhitespace()
            try member(&self, key)
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
            case UInt8(ascii: "}"):
                index += 1
                return
            default:
                throw error("expected ',' or '}' in an object")
            }
        }
    }

    /// Walks the array at `[` (at nesting `depth`); `element` must read or skip one value.
    package mutating func eachElement(depth: Int, _ element: (inout JSONParser) throws(JSONParseError) -> Void) throws(JSONParseError) {
        guard depth <= Self.maxDepth else { throw error("nested deeper than \(Self.maxDepth)") }
        index += 1  // [
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return
        }
        while true {
            try element(&self)
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
            case UInt8(ascii: "]"):
                index += 1
                return
            default:
                throw error("expected ',' or ']' in an array")
            }
        }
    }

    /// Moves past one value, refusing exactly what ``value(depth:)`` refuses, without
    /// building it: for values read later or never (a snapshot's display fields).
    package mutating func skipValue(depth: Int) throws(JSONParseError) {
        guard let byte = current else { throw error("the text ends where a value should start") }
        switch byte {
        case UInt8(ascii: "\""): try skipString()
        case UInt8(ascii: "{"):
            try eachMember(depth: depth + 1, keys: false) { parser, _ throws(JSONParseError) in try parser.skipValue(depth: depth + 1) }
        case UInt8(ascii: "["):
            try eachElement(depth: depth + 1) { parser throws(JSONParseError) in try parser.skipValue(depth: depth + 1) }
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): _ = try number()
        default: throw error("unexpected character '\(Unicode.Scalar(byte))'")
        }
    }

    /// ``string()`` without making the String: ASCII text needs no UTF-8 check, the rest (and
    /// text with escapes) is checked as `string()` checks it.
    mutating func skipString() throws(JSONParseError) {
        index += 1  // "
        let start = index
        var bits: UInt8 = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                if bits >= 0x80 { _ = try utf8(start..<index) }
                index += 1
                return
            }
            if byte == UInt8(ascii: "\\") {
                // Rare in stored values: resolve the escapes as string() does, to check them.
                index = start - 1
                _ = try string()
                return
            }
            guard byte >= 0x20 else { throw error("a control character must be escaped in a string") }
            bits |= byte
            index += 1
        }
        throw error("a string is not closed")
    }

    mutating func literal(_ word: StaticString) throws(JSONParseError) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("expected '\(word)'") }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
            throw error("expected '\(word)'")
        }
        index += count
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, as a Double (JSONValue's one number).
    mutating func number() throws(JSONParseError) -> Double {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, first.isDigit else { throw error("a number needs a digit") }
        index += 1
        if first == UInt8(ascii: "0"), current?.isDigit == true { throw error("a number cannot have leading zeros") }
        var integral = true
        skipDigits()
        if current == UInt8(ascii: ".") {
            integral = false
            index += 1
            guard current?.isDigit == true else { throw error("a fraction needs a digit") }
            skipDigits()
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            integral = false
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard current?.isDigit == true else { throw error("an exponent needs a digit") }
            skipDigits()
        }
        let text = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
        // Integers of up to 15 digits are exact in a Double: no text conversion needed.
        if integral {
            let negative = text[0] == UInt8(ascii: "-")
            let digits = UnsafeRawBufferPointer(rebasing: text[(negative ? 1 : 0)...])
            if digits.count <= 15 {
                var value: Int64 = 0
                for byte in digits { value = value * 10 + Int64(byte - UInt8(ascii: "0")) }
                return Double(negative ? -value : value)
            }
        }
        guard let value = Double(String(decoding: text, as: UTF8.self)), value.isFinite else {
            index = start
            throw error("a number out of range")
        }
        return value
    }

    mutating func skipDigits() {
        while let byte = current, byte.isDigit { index += 1 }
    }

    /// A string at `"`; its escapes resolved, its bytes checked to be UTF-8.
    mutating func string() throws(JSONParseError) -> String {
        index += 1  // "
        let start = index
        // The common case, no escape: one slice, validated once.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = try utf8(start..<index)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw error("a control character must be escaped in a string") }
            index += 1
        }
        var scalars = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = scalars.withUnsafeBytes({ Self.validUTF8($0) }) else { throw error("a string is not valid UTF-8") }
                return text
            case UInt8(ascii: "\\"):
                index += 1
                try escape(into: &scalars)
            case ..<0x20:
                throw error("a control character must be escaped in a string")
            default:
                scalars.append(byte)
                index += 1
            }
        }
        throw error("a string is not closed")
    }

    func utf8(_ range: Range<Int>) throws(JSONParseError) -> String {
        let slice = UnsafeRawBufferPointer(rebasing: bytes[range])
        guard let text = Self.validUTF8(slice) else {
            throw JSONParseError(offset: range.lowerBound, reason: "a string is not valid UTF-8")
        }
        return text
    }

    /// The text of `bytes`, or nil when they are not UTF-8. `String(decoding:)` repairs what
    /// is not UTF-8, so its bytes equal the input exactly when there was nothing to repair;
    /// `String(validating:as:)` gives the same answer but, generic over the encoding, spends
    /// much of a snapshot's parse looking up type metadata.
    static func validUTF8(_ bytes: UnsafeRawBufferPointer) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        let unchanged = text.utf8.withContiguousStorageIfAvailable { stored in
            stored.count == bytes.count && (bytes.isEmpty || memcmp(stored.baseAddress!, bytes.baseAddress!, bytes.count) == 0)
        }
        return unchanged ?? text.utf8.elementsEqual(bytes) ? text : nil
    }

    /// One escape after its backslash, appended as UTF-8.
    mutating func escape(into output: inout [UInt8]) throws(JSONParseError) {
        guard let byte = current else { throw error("a string is not closed") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(byte)
        case UInt8(ascii: "b"): output.append(0x08)
        case UInt8(ascii: "f"): output.append(0x0C)
        case UInt8(ascii: "n"): output.append(0x0A)
        case UInt8(ascii: "r"): output.append(0x0D)
        case UInt8(ascii: "t"): output.append(0x09)
        case UInt8(ascii: "u"):
            var code = UInt32(try hex4())
            if (0xD800..<0xDC00).contains(code) {
                // A high surrogate must be followed by an escaped low one.
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw error("a lone surrogate in a \\u escape")
                }
                index += 2
                let low = UInt32(try hex4())
                guard (0xDC00..<0xE000).contains(low) else { throw error("a lone surrogate in a \\u escape") }
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(code) {
                throw error("a lone surrogate in a \\u escape")
            }
            guard let scalar = Unicode.Scalar(code) else { throw error("an invalid \\u escape") }
            output.append(contentsOf: Array(String(Character(scalar)).utf8))
        default:
            index -= 1
            throw error("an invalid escape '\\\(Unicode.Scalar(byte))'")
        }
    }

    mutating func hex4() throws(JSONParseError) -> UInt16 {
        guard index + 4 <= bytes.count else { throw error("a \\u escape needs four hex digits") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("a \\u escape needs four hex digits")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }
}

extension UInt8 {
    fileprivate var isDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }
}
