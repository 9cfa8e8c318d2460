@testable import BraidContracts
import BraidTestSupport
import Foundation
import Testing

@testable import BraidCore

/// The JSON parser that reads stored snapshots: it must read exactly what `JSONDecoder` reads
/// (the reference it stands in for on that path), and refuse what is not JSON with the place it
/// broke.
@Suite("JSON parsing")
struct JSONParsingTests {
    /// Random trees of every kind, with strings that need escapes, non-ASCII text, and numbers
    /// of every shape JSONValue's encoder writes.
    static func randomValue(depth: Int, using generator: inout SeededGenerator) -> JSONValue {
        let texts = ["", "curry", "Curry \"Rice\"", "カレー/うどん", "tab\there", "line\nbreak", "back\\slash", "\u{1}\u{1F}", "😀 emoji", "é"]
        switch Int.random(in: 0..<(depth > 2 ? 5 : 7), using: &generator) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &generator))
        case 2: return .string(texts[Int.random(in: 0..<texts.count, using: &generator)])
        case 3: return .number(Double(Int.random(in: -1_000_000...1_000_000, using: &generator)))
        case 4: return .number([0.5, -1.25e-7, 3.141592653589793, 1e300, 1.2345678901234568e17][Int.random(in: 0..<5, using: &generator)])
        case 5:
            return .array((0..<Int.random(in: 0...4, using: &generator)).map { _ in randomValue(depth: depth + 1, using: &generator) })
        default:
            let keys = ["id", "title", "a b", "ключ", "\"q\""]
            return .object(Dictionary(
                (0..<Int.random(in: 0...4, using: &generator)).map { _ in
                    (keys[Int.random(in: 0..<keys.count, using: &generator)], randomValue(depth: depth + 1, using: &generator))
                },
                uniquingKeysWith: { first, _ in first }))
        }
    }

    @Test("reads what JSONDecoder reads, for a thousand random values")
    func agreesWithJSONDecoder() throws {
        var generator = SeededGenerator(seed: 7)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for _ in 0..<1_000 {
            let value = Self.randomValue(depth: 0, using: &generator)
            let data = try encoder.encode(value)
            let parsed = try JSONValue.parse(data)
            #expect(parsed == (try JSONDecoder().decode(JSONValue.self, from: data)), "\(String(decoding: data, as: UTF8.self))")
            #expect(parsed == value)
        }
    }

    @Test("resolves every escape, surrogate pairs included, and allows whitespace between tokens")
    func escapesAndWhitespace() throws {
        let text = #" { "s" : "\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00" , "n" : [ -0.5e+2 , 0 , -12 , 1E2 ] , "t" : true , "z" : null } "#
        let parsed = try JSONValue.parse(Data(text.utf8))
        #expect(parsed == .object([
            "s": .string("\"\\/\u{8}\u{C}\n\r\té😀"),
            "n": .array([.number(-50), .number(0), .number(-12), .number(100)]),
            "t": .bool(true), "z": .null,
        ]))
        #expect(try JSONValue.parse(Data("12345678901234567890".utf8)) == .number(Double(UInt64(12_345_678_901_234_567_890))))
    }

    @Test("refuses what is not JSON, saying where", arguments: [
        ("", 0, "ends where a value"),
        ("[1,]", 3, "unexpected character"),
        ("{\"a\":1,}", 7, "must be a string"),
        ("{\"a\" 1}", 5, "expected ':'"),
        ("01", 1, "leading zeros"),
        ("1.", 2, "fraction needs a digit"),
        ("1e", 2, "exponent needs a digit"),
        ("-", 1, "needs a digit"),
        ("1e400", 0, "out of range"),
        ("\"a", 2, "not closed"),
        ("\"a\nb\"", 2, "control character"),
        ("\"\\x\"", 2, "invalid escape"),
        ("\"\\ud83d\"", 7, "lone surrogate"),
        ("\"\\ude00\"", 7, "lone surrogate"),
        ("\"\\u12\"", 3, "four hex digits"),
        ("tru", 0, "expected 'true'"),
        ("[1] 2", 4, "after the value"),
        ("[1 2]", 3, "expected ',' or ']'"),
        ("{\"a\":1 \"b\":2}", 7, "expected ',' or '}'"),
    ])
    func refusesInvalidText(text: String, offset: Int, reason: String) {
        #expect {
            _ = try JSONValue.parse(Data(text.utf8))
        } throws: { error in
            guard let error = error as? JSONParseError else { return false }
            return error.offset == offset && error.reason.contains(reason)
        }
    }

    @Test("refuses bytes that are not UTF-8 and values nested past the limit")
    func refusesBadBytesAndDeepNesting() {
        #expect(throws: JSONParseError.self) { try JSONValue.parse(Data([0x22, 0xC3, 0x28, 0x22])) }
        #expect(throws: JSONParseError.self) { try JSONValue.parse(Data([0x22, 0x5C, 0x6E, 0xFF, 0x22])) }
        let deep = String(repeating: "[", count: JSONParser.maxDepth + 1) + String(repeating: "]", count: JSONParser.maxDepth + 1)
        #expect(throws: JSONParseError.self) { try JSONValue.parse(Data(deep.utf8)) }
        let limit = String(repeating: "[", count: JSONParser.maxDepth) + String(repeating: "]", count: JSONParser.maxDepth)
        #expect((try? JSONValue.parse(Data(limit.utf8))) != nil)
    }

    @Test("checks UTF-8 byte by byte: overlong forms, encoded surrogates and cut sequences are refused, U+FFFD itself is text")
    func utf8IsCheckedExactly() throws {
        func quoted(_ bytes: [UInt8]) -> Data { Data([0x22] + bytes + [0x22]) }
        for bad: [UInt8] in [[0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xE3, 0x81], [0xF4, 0x90, 0x80, 0x80], [0x61, 0x80, 0x62], [0xFE]] {
            #expect(throws: JSONParseError.self, "\(bad)") { try JSONValue.parse(quoted(bad)) }
            #expect(throws: JSONParseError.self, "\(bad) as a key") { try JSONValue.parse(Data("{".utf8) + quoted(bad) + Data(":1}".utf8)) }
        }
        let text = "本格ビーフカレー \u{FFFD} é 🍛"
        #expect(try JSONValue.parse(quoted(Array(text.utf8))) == .string(text))
        #expect(try JSONValue.parse(Data(#"{"k":1,"j":2,"k":3}"#.utf8)) == .object(["k": 3, "j": 2]))
    }

    /// Where parsing (or skipping) one value from the start of `data` ends, or why it fails.
    static func outcome(_ data: Data, skipping: Bool) -> Result<Int, JSONParseError> {
        data.withUnsafeBytes { bytes in
            var parser = JSONParser(bytes: bytes)
            do throws(JSONParseError) {
                parser.skipWhitespace()
                if skipping { try parser.skipValue(depth: 0) } else { _ = try parser.value(depth: 0) }
                return .success(parser.index)
            } catch {
                return .failure(error)
            }
        }
    }

    @Test("skipping a value refuses exactly what parsing refuses, at the same byte, and ends where it ends")
    func skippingAgreesWithParsing() throws {
        var generator = SeededGenerator(seed: 11)
        let encoder = JSONEncoder()
        let noise: [UInt8] = Array(#""\{}[],:0-e.u tn"#.utf8) + [0x01, 0x7F, 0x80, 0xC3, 0xE3, 0xED, 0xFF]
        var texts = [
            "", "[1,]", "{\"a\":1,}", "01", "1.", "1e400", "\"a\nb\"", "\"\\ud83d\"", "\"\\u12\"", "tru", "[1 2]", "{\"a\":1 \"b\":2}",
            String(repeating: "[", count: JSONParser.maxDepth + 1) + String(repeating: "]", count: JSONParser.maxDepth + 1),
            String(repeating: "[", count: JSONParser.maxDepth) + String(repeating: "]", count: JSONParser.maxDepth),
        ].map { Data($0.utf8) }
        texts += [[0x22, 0xC3, 0x28, 0x22], [0x22, 0x5C, 0x6E, 0xFF, 0x22], [0x7B, 0x22, 0xE3, 0x81, 0x22, 0x3A, 0x31, 0x7D]].map { Data($0) }
        for _ in 0..<2_000 {
            var bytes = Array(try encoder.encode(Self.randomValue(depth: 0, using: &generator)))
            texts.append(Data(bytes))
            let position = Int.random(in: 0..<bytes.count, using: &generator)
            switch Int.random(in: 0..<3, using: &generator) {
            case 0: bytes[position] = noise.randomElement(using: &generator)!
            case 1: bytes.insert(noise.randomElement(using: &generator)!, at: position)
            default: bytes.remove(at: position)
            }
            texts.append(Data(bytes))
        }
        var refused = 0
        for text in texts {
            let parsed = Self.outcome(text, skipping: false)
            #expect(Self.outcome(text, skipping: true) == parsed, "\(Array(text))")
            if case .failure = parsed { refused += 1 }
        }
        #expect(refused > 500, "the mutations should break many texts, not only a few")
    }

    @Test("a stored snapshot reads back equal to what was written, and a wrong shape names the member")
    func snapshotRoundTrip() throws {
        var generator = SeededGenerator(seed: 3)
        let documents = (0..<50).map { index in
            RankingSnapshot.Document(id: "r\(index)", score: Double.random(in: 0...20, using: &generator), fields: [
                "title": .string("Curry \(index) \"special\""), "popularity": .number(Double(index * 31)),
                "ingredients": .array([.string("rice"), .string("カレー")]), "published_at": .number(1_700_000_000 + Double(index)),
            ])
        }
        let snapshot = RankingSnapshot(
            ranking: "featured", query: "curry", version: 1_763_900_000_123, createdAt: Date(timeIntervalSince1970: 1_763_900_000),
            requestID: "req-1", documents: documents, matchGeneration: "fts5-1:5e1f")
        let data = try snapshot.encoded()
        let decoded = try RankingSnapshot.decode(data)
        #expect(decoded == snapshot)
        #expect(decoded.matchGeneration == "fts5-1:5e1f")
        #expect(decoded == (try StoredValueCoding.decoder().decode(RankingSnapshot.self, from: data)))

        guard case .object(var members) = try JSONValue.parse(data), case .array(var stored) = members["documents"], case .object(var first) = stored[0] else {
            Issue.record("the snapshot is not an object with documents")
            return
        }
        first["score"] = .string("high")
        stored[0] = .object(first)
        members["documents"] = .array(stored)
        #expect {
            _ = try RankingSnapshot.decode(try JSONEncoder().encode(JSONValue.object(members)))
        } throws: { error in
            (error as? StoredValueShapeError)?.description == "documents[0].score is not a number"
        }
        first["score"] = .number(1)
        first["fields"] = .array([])
        stored[0] = .object(first)
        members["documents"] = .array(stored)
        #expect {
            _ = try RankingSnapshot.decode(try JSONEncoder().encode(JSONValue.object(members)))
        } throws: { error in
            (error as? StoredValueShapeError)?.description == "documents[0].fields is not an object"
        }
        // Fields are read when shown, but checked when the snapshot is read.
        var text = Array(data)
        let title = Array(#""title":"Curry 7"#.utf8)
        let at = try #require(text.indices.first { text[$0..<min(text.count, $0 + title.count)].elementsEqual(title) })
        text[at + title.count - 1] = 0xFF
        #expect(throws: JSONParseError.self) { try RankingSnapshot.decode(Data(text)) }
        members["documents"] = .array([])
        members.removeValue(forKey: "created_at")
        #expect {
            _ = try RankingSnapshot.decode(try JSONEncoder().encode(JSONValue.object(members)))
        } throws: { error in
            (error as? StoredValueShapeError)?.description == "snapshot.created_at is missing"
        }
        // The match generation is optional (older workers do not write it), but typed when present.
        members["created_at"] = .string("2025-11-23T12:00:00Z")
        members["match_generation"] = .number(7)
        #expect {
            _ = try RankingSnapshot.decode(try JSONEncoder().encode(JSONValue.object(members)))
        } throws: { error in
            (error as? StoredValueShapeError)?.description == "snapshot.match_generation is not a string"
        }
        members.removeValue(forKey: "match_generation")
        #expect(try RankingSnapshot.decode(try JSONEncoder().encode(JSONValue.object(members))).matchGeneration == nil)
    }
}
