@testable import BraidContracts
import BraidTestSupport
import Foundation
import Testing

@testable import BraidCore

/// The JSON writer that stores snapshots: it must write what `JSONEncoder` writes (the
/// reference it stands in for), so stored values read the same whoever wrote them.
@Suite("JSON writing")
struct JSONWritingTests {
    static func encoderText(_ value: some Encodable) throws -> String {
        String(decoding: try StoredValueCoding.encoder().encode(value), as: UTF8.self)
    }

    static func writerText(_ value: JSONValue) throws -> String {
        var writer = JSONWriter()
        try writer.write(value)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    @Test("random trees come out as JSONEncoder writes them, and parse back equal")
    func randomTreesMatchTheEncoder() throws {
        var generator = SeededGenerator(seed: 11)
        for _ in 0..<2_000 {
            let value = JSONParsingTests.randomValue(depth: 0, using: &generator)
            let written = try Self.writerText(value)
            #expect(written == (try Self.encoderText(value)), "for \(value)")
            #expect(try JSONValue.parse(Data(written.utf8)) == value)
        }
    }

    @Test("escapes, slashes and non-ASCII text")
    func strings() throws {
        let text = "a\"b\\c/d\n\r\t\u{8}\u{C}\u{1}\u{1F} カレー 😀"
        #expect(try Self.writerText(.string(text)) == #""a\"b\\c/d\n\r\t\b\f\u0001\u001f カレー 😀""#)
        #expect(try Self.writerText(.string(text)) == (try Self.encoderText(JSONValue.string(text))))
    }

    @Test("numbers: integral ones without a fraction, others round-tripping, no NaN or infinity")
    func numbers() throws {
        for (number, text) in [(3.0, "3"), (-0.0, "0"), (12.5, "12.5"), (1e-7, "1e-07"), (9.0e15, "9000000000000000"), (1e16, "1e+16"), (0.1, "0.1")] {
            let written = try Self.writerText(.number(number))
            let encoded = try Self.encoderText(JSONValue.number(number))
            #expect(written == text, "\(number) written as \(written)")
            #expect(written == encoded)
        }
        for number in [Double.nan, .infinity, -.infinity] {
            #expect(throws: JSONWriteError.self) { try Self.writerText(.number(number)) }
        }
    }

    @Test("a snapshot is stored as JSONEncoder stored it")
    func snapshotMatchesTheEncoder() throws {
        var generator = SeededGenerator(seed: 5)
        var documents: [RankingSnapshot.Document] = []
        for index in 0..<50 {
            let score = index == 0 ? 3 : Double.random(in: -20...20, using: &generator)
            var fields: [String: JSONValue] = [:]
            if index != 1 {
                fields["title"] = .string("Curry \(index) \"special\" 1/2")
                fields["popularity"] = .number(Double(index * 31))
                fields["ingredients"] = .array([.string("rice"), .string("カレー")])
                fields["image_url"] = .null
                fields["vegan"] = .bool(index % 2 == 0)
                fields["nested"] = JSONParsingTests.randomValue(depth: 1, using: &generator)
            }
            documents.append(RankingSnapshot.Document(id: "r\(index)", score: score, fields: fields))
        }
        var snapshot = RankingSnapshot(
            ranking: "featured", query: "curry \"rice\"", version: 1_763_900_000_123,
            createdAt: Date(timeIntervalSince1970: 1_763_900_000.75), requestID: "req-1", documents: documents)
        for generation in [nil, "fts5-1:0f3a\"9"] {
            snapshot.matchGeneration = generation
            let written = String(decoding: try snapshot.encoded(), as: UTF8.self)
            #expect(written == (try Self.encoderText(snapshot)))
            #expect(written.contains("match_generation") == (generation != nil))
            #expect(try RankingSnapshot.decode(Data(written.utf8)) == RankingSnapshot.decode(try StoredValueCoding.encoder().encode(snapshot)))
        }

        var bad = snapshot
        bad.documents[7].score = .nan
        #expect(throws: JSONWriteError.self) { try bad.encoded() }
    }
}
