@testable import BraidContracts
import BraidTestSupport
import Foundation
import Testing

@testable import BraidCore

/// The stored form of component contents: a page is a byte slice whose hash and JSON are
/// exactly those of the page's items, and what is not such a value is refused, not misread.
@Suite("Stored components")
struct StoredComponentTests {
    static func items(_ count: Int, seed: UInt64 = 1) -> [JSONValue] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { index in
            .object([
                "id": .string("r\(index)"),
                "title": .string(["Curry \"Rice\"", "カレー/うどん", "Pie\\n", "Stew\u{1}"][Int.random(in: 0..<4, using: &generator)]),
                "popularity": .number(Double(Int.random(in: 0...10_000, using: &generator))),
                "score": .number(Double.random(in: 0...1, using: &generator)),
                "ingredients": .array([.string("egg"), .string("rice")]),
                "nested": .object(["b": .bool(true), "a": .null]),
            ])
        }
    }

    static func content(_ items: [JSONValue]) -> ComponentContent {
        ComponentContent(
            feed: "home", type: .recommendedRecipes, scope: ComponentScope(user: "u1"), items: items, version: 42,
            createdAt: Date(timeIntervalSince1970: 1_800_000_000))
    }

    @Test("Every page slice is the canonical JSON of its items, with the same hash", arguments: [0, 1, 2, 7, 25])
    func slicesAreTheItemsCanonicalJSON(count: Int) throws {
        let items = Self.items(count)
        let stored = try StoredComponent.encode(Self.content(items))
        #expect(stored.count == count)
        for lower in 0...count {
            for upper in lower...count {
                let page = Array(items[lower..<upper])
                let slice = stored.joinedItems(lower..<upper)
                #expect([UInt8(ascii: "[")] + Array(slice) + [UInt8(ascii: "]")] == CanonicalJSON.array(page))
                #expect(ComponentHash.content(ofJoinedItems: slice) == ComponentContent.stateHash(of: page))
            }
        }
        #expect(stored.joinedItems(count..<(count + 5)).isEmpty)
    }

    @Test("The document decodes to the content; parsing the stored fields gives the same value")
    func roundTrip() throws {
        let content = Self.content(Self.items(12))
        let stored = try StoredComponent.encode(content)
        #expect(try stored.decoded() == content)
        let parsed = try StoredComponent.parse(
            document: stored.document, offsets: Array(stored.offsetsText.utf8), version: stored.version, stateHash: stored.stateHash)
        #expect(parsed == stored)
        // Items are the last member: the document is valid JSON as a whole.
        let object = try #require(try JSONSerialization.jsonObject(with: Data(stored.document)) as? [String: Any])
        #expect(object["schema"] as? String == "braid.component/v2")
        #expect((object["items"] as? [Any])?.count == 12)
    }

    @Test("Offsets that do not frame the document's items are refused")
    func badOffsetsAreRefused() throws {
        let stored = try StoredComponent.encode(Self.content(Self.items(3)))
        var shifted = stored.offsets
        shifted[1] += 1
        let other = try StoredComponent.encode(Self.content(Self.items(4, seed: 9)))
        let cases: [(String, [UInt8], [UInt8])] = [
            ("shifted", stored.document, Array(("[" + shifted.map(String.init).joined(separator: ",") + "]").utf8)),
            ("another document's", stored.document, Array(other.offsetsText.utf8)),
            ("not an array", stored.document, Array("12,40".utf8)),
            ("not increasing", stored.document, Array("[40,12,80,90]".utf8)),
            ("past the end", stored.document, Array("[1,2,3,\(stored.document.count + 10)]".utf8)),
            ("empty", stored.document, Array("[]".utf8)),
            ("a v1 document with v2 offsets", Array(#"{"created_at":"x","items":[{"id":"1"},{"id":"2"},{"id":"3"}]}"#.utf8), Array(stored.offsetsText.utf8)),
        ]
        for (name, document, offsets) in cases {
            #expect(throws: StoredComponentError.self, "\(name)") {
                try StoredComponent.parse(document: document, offsets: offsets, version: 1, stateHash: "")
            }
        }
    }

    @Test("A braid.component/v1 value is still read, as the same pages")
    func legacyValuesAreRead() throws {
        let items = Self.items(5)
        let v1 = #"{"created_at":"2027-01-15T08:00:00Z","feed":"home","items":"# + String(decoding: CanonicalJSON.array(items), as: UTF8.self)
            + #","schema":"braid.component/v1","scope":{"user":"u1"},"state_hash":"\#(ComponentContent.stateHash(of: items))","type":"recommended_recipes","version":42}"#
        let stored = try StoredComponent.legacy(Data(v1.utf8))
        #expect(stored.count == 5)
        #expect(stored.version == 42)
        #expect(Array(stored.joinedItems(1..<3)) == Array(CanonicalJSON.array(Array(items[1..<3])).dropFirst().dropLast()))
        #expect(throws: (any Error).self) { try StoredComponent.legacy(Data(#"{"schema":"braid.component/v9"}"#.utf8)) }
    }

    @Test("Fixed state hashes depend on type and layout only")
    func fixedHashes() {
        let base = ComponentHash.fixed(type: .banner, style: .banner, width: 360, height: 120)
        #expect(base == ComponentHash.fixed(type: .banner, style: .banner, width: 360, height: 120))
        #expect(base != ComponentHash.fixed(type: .banner, style: .banner, width: 360, height: 121))
        #expect(base != ComponentHash.fixed(type: .userStats, style: .banner, width: 360, height: 120))
        #expect(base != ComponentHash.fixed(type: .banner, style: .card, width: 360, height: 120))
        #expect(base.count == 32)
    }

    @Test("Item shapes: times, counts and strings are checked like the schema's patterns")
    func itemShapeChecks() throws {
        for good in ["2026-11-22T10:00:00Z", "2026-11-22T10:00:00.123Z", "2026-11-22T10:00:00+09:00"] {
            #expect(ComponentItemShape.isTime(good), "\(good)")
        }
        for bad in ["2026-11-22", "2026-11-22T10:00:00", "2026-11-22T10:00:00.Z", "2026-11-22 10:00:00Z", "2026-11-22T10:00:00+0900", "x"] {
            #expect(!ComponentItemShape.isTime(bad), "\(bad)")
        }
        #expect(ComponentItemShape.matches(.number(3), .count))
        #expect(!ComponentItemShape.matches(.number(2.5), .count))
        #expect(!ComponentItemShape.matches(.number(-1), .count))
        #expect(throws: ComponentShapeError.self) { try ComponentItemShape.validate([.object(["id": "x"])], for: .banner) }
        #expect(throws: ComponentShapeError.self) { try ComponentItemShape.validate([], for: .interleavedRecipes) }
    }
}
