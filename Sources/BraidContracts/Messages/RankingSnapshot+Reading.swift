import BraidCore
import Foundation
import Synchronization

extension RankingSnapshot {
    /// Reads a stored snapshot. Parsed with ``JSONParser`` rather than `JSONDecoder` (whose
    /// failed `try?`s are a large part of an uncached page's CPU), and the documents' display
    /// fields are checked but not built: building them is most of the parse, and a page shows
    /// only the few documents it places (``Document/fields`` parses them then).
    public static func decode(_ data: Data) throws -> RankingSnapshot {
        try decode([UInt8](data))
    }

    /// The same, over bytes the documents' fields keep (and share) until they are read.
    public static func decode(_ text: [UInt8]) throws -> RankingSnapshot {
        try text.withUnsafeBytes { bytes in try read(bytes, text: text) }
    }

    private static func read(_ bytes: UnsafeRawBufferPointer, text: [UInt8]) throws -> RankingSnapshot {
        var parser = JSONParser(bytes: bytes)
        parser.skipWhitespace()
        guard parser.current == UInt8(ascii: "{") else {
            _ = try parser.value(depth: 0)  // says why when it is not JSON
            throw StoredValueShapeError("snapshot is not an object")
        }
        var members: [String: JSONValue] = [:]
        var documents: [Document]?
        var shapeError: StoredValueShapeError?
        try parser.eachMember(depth: 1) { parser, key throws(JSONParseError) in
            guard key == "documents" else {
                members[key] = try parser.value(depth: 1)
                return
            }
            guard parser.current == UInt8(ascii: "[") else {
                _ = try parser.value(depth: 1)
                shapeError = shapeError ?? StoredValueShapeError("snapshot.documents is not an array")
                return
            }
            var read: [Document] = []
            try parser.eachElement(depth: 2) { parser throws(JSONParseError) in
                switch try document(&parser, index: read.count, text: text) {
                case .success(let document): read.append(document)
                case .failure(let error):
                    shapeError = shapeError ?? error
                    read.append(Document(id: "", score: 0))
                }
            }
            documents = read
        }
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.error("unexpected bytes after the value") }
        if let shapeError { throw shapeError }
        let fields = StoredObject(members: members, path: "snapshot")
        guard let documents else { throw StoredValueShapeError("snapshot.documents is missing") }
        var snapshot = RankingSnapshot(
            ranking: try fields.string("ranking"), query: try fields.string("query"), version: try fields.integer("version"),
            createdAt: try fields.date("created_at"), requestID: try fields.string("request_id"), documents: documents,
            matchGeneration: try fields.optionalString("match_generation"))
        snapshot.schema = try fields.string("schema")
        return snapshot
    }

    /// One element of `documents`: its id and score read, its fields only checked and kept as
    /// their place in `text`. A wrong shape is returned rather than thrown, so that the whole
    /// text is still checked to be JSON first.
    private static func document(
        _ parser: inout JSONParser, index: Int, text: [UInt8]
    ) throws(JSONParseError) -> Result<Document, StoredValueShapeError> {
        let path = "documents[\(index)]"
        guard parser.current == UInt8(ascii: "{") else {
            _ = try parser.value(depth: 2)
            return .failure(StoredValueShapeError("\(path) is not an object"))
        }
        // Straight into variables: a dictionary per document would be a large part of the read.
        var id: JSONValue?
        var score: JSONValue?
        var fields: Range<Int>?
        var fieldsIsObject = true
        try parser.eachMember(depth: 3) { parser, key throws(JSONParseError) in
            switch key {
            case "id": id = try parser.value(depth: 3)
            case "score": score = try parser.value(depth: 3)
            case "fields":
                let start = parser.index
                fieldsIsObject = parser.current == UInt8(ascii: "{")
                try parser.skipValue(depth: 3)
                fields = start..<parser.index
            default: try parser.skipValue(depth: 3)
            }
        }
        func wrong(_ member: String, _ kind: String, present: Bool) -> Result<Document, StoredValueShapeError> {
            .failure(StoredValueShapeError(present ? "\(path).\(member) is not \(kind)" : "\(path).\(member) is missing"))
        }
        guard case .string(let id)? = id else { return wrong("id", "a string", present: id != nil) }
        guard case .number(let score)? = score else { return wrong("score", "a number", present: score != nil) }
        guard let fields, fieldsIsObject else { return wrong("fields", "an object", present: fields != nil) }
        return .success(Document(id: id, score: score, storedFields: DocumentFields(text: text, range: fields)))
    }
}

/// A document's display fields: given as values, or the place in a stored snapshot's text of
/// an object already checked to be JSON, parsed each time they are read. Not kept: a snapshot
/// in the near-cache is counted at the size it was admitted with, and must stay that size.
final class DocumentFields: Sendable {
    private enum Source {
        case values([String: JSONValue])
        case stored(text: [UInt8], range: Range<Int>)
    }

    private let source: Source

    init(_ values: [String: JSONValue]) {
        source = .values(values)
    }

    init(text: [UInt8], range: Range<Int>) {
        source = .stored(text: text, range: range)
    }

    var value: [String: JSONValue] {
        switch source {
        case .values(let values):
            return values
        case .stored(let text, let range):
            return Self.parse(text, range: range)
        }
    }

    /// Cannot fail: the snapshot's reader checked these bytes with the same parser (an
    /// object's own depth limit is the larger one here, at the top).
    private static func parse(_ text: [UInt8], range: Range<Int>) -> [String: JSONValue] {
        let value = text.withUnsafeBytes { bytes in try? JSONValue.parse(UnsafeRawBufferPointer(rebasing: bytes[range])) }
        guard case .object(let members)? = value else {
            assertionFailure("stored fields that were checked as an object did not parse as one")
            return [:]
        }
        return members
    }
}

extension StoredObject {
    init(members: [String: JSONValue], path: String) {
        self.members = members
        self.path = path
    }
}
