import BraidCore
import Foundation

/// One immutable, versioned snapshot of a secondary ranking (ranking B) as stored in Redis
/// (`Schemas/snapshot.schema.json`).
///
/// A snapshot is never modified after it is written: a refresh writes a new version and
/// flips the `cur` pointer, so a session paginating on version v keeps reading exactly the
/// documents its first page was interleaved with.
public struct RankingSnapshot: Sendable, Hashable, Codable {
    public static let schemaName = "braid.snapshot/v1"

    /// One document of the ranking with the fields the gateway shows.
    public struct Document: Sendable, Hashable, Codable {
        public var id: String
        public var score: Double
        /// Read from a stored snapshot, they stay bytes until first asked for (then are kept):
        /// a page shows a few of a snapshot's documents and only needs the others' ids.
        public var fields: [String: JSONValue] {
            get { storedFields.value }
            set { storedFields = DocumentFields(newValue) }
        }
        var storedFields: DocumentFields

        public init(id: String, score: Double, fields: [String: JSONValue] = [:]) {
            self.init(id: id, score: score, storedFields: DocumentFields(fields))
        }

        init(id: String, score: Double, storedFields: DocumentFields) {
            self.id = id
            self.score = score
            self.storedFields = storedFields
        }

        public static func == (lhs: Document, rhs: Document) -> Bool {
            lhs.id == rhs.id && lhs.score == rhs.score && lhs.fields == rhs.fields
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(id)
            hasher.combine(score)
            hasher.combine(fields)
        }

        enum CodingKeys: String, CodingKey {
            case id, score, fields
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                id: try container.decode(String.self, forKey: .id), score: try container.decode(Double.self, forKey: .score),
                fields: try container.decode([String: JSONValue].self, forKey: .fields))
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(score, forKey: .score)
            try container.encode(fields, forKey: .fields)
        }
    }

    public var schema: String
    public var ranking: String
    /// The normalised query (``QueryNormalizer``) the snapshot answers.
    public var query: String
    /// Milliseconds since 1970 of the request that produced it; versions only grow.
    public var version: Int64
    public var createdAt: Date
    public var requestID: String
    public var documents: [Document]
    /// The live source's match generation (``SearchResult/matchGeneration``) the documents were
    /// ranked in: each of them matched ``query`` then. While the source still reports it, a
    /// cold page knows that every placed document is among A's matches without asking.
    public var matchGeneration: String?

    public init(
        ranking: String, query: String, version: Int64, createdAt: Date, requestID: String, documents: [Document],
        matchGeneration: String? = nil
    ) {
        self.schema = Self.schemaName
        self.ranking = ranking
        self.query = query
        self.version = version
        self.createdAt = createdAt
        self.requestID = requestID
        self.documents = documents
        self.matchGeneration = matchGeneration
    }

    enum CodingKeys: String, CodingKey {
        case schema, ranking, query, version, documents
        case createdAt = "created_at"
        case requestID = "request_id"
        case matchGeneration = "match_generation"
    }

    /// The version a request produces: its `requested_at` in milliseconds, so a retried or
    /// replayed old request can never replace a newer snapshot. Rounded to the nearest
    /// millisecond, the precision of the wire format (a parsed `.874` is `.87399…` in binary).
    public static func version(for requestedAt: Date) -> Int64 {
        Int64((requestedAt.timeIntervalSince1970 * 1000).rounded())
    }
}

extension RankingSnapshot {
    /// Compact JSON with sorted keys and RFC 3339 times, as stored in Redis: what
    /// `JSONEncoder` with ``StoredValueCoding`` writes, written by ``JSONWriter`` (a worker
    /// encodes one per request, and through `JSONEncoder` that is a large share of its CPU time).
    public func encoded() throws -> Data {
        var writer = JSONWriter(reservingCapacity: 256 + documents.count * 384)
        writer.raw(#"{"created_at":"#)
        writer.write(createdAt.formatted(.iso8601))
        writer.raw(#","documents":["#)
        for (index, document) in documents.enumerated() {
            writer.raw(index == 0 ? #"{"fields":"# : #",{"fields":"#)
            try writer.writeObject(document.fields)
            writer.raw(#","id":"#)
            writer.write(document.id)
            writer.raw(#","score":"#)
            try writer.write(document.score)
            writer.raw("}")
        }
        writer.raw("]")
        if let matchGeneration {
            writer.raw(#","match_generation":"#)
            writer.write(matchGeneration)
        }
        writer.raw(#","query":"#)
        writer.write(query)
        writer.raw(#","ranking":"#)
        writer.write(ranking)
        writer.raw(#","request_id":"#)
        writer.write(requestID)
        writer.raw(#","schema":"#)
        writer.write(schema)
        writer.raw(#","version":"#)
        writer.write(version)
        writer.raw("}")
        return Data(writer.bytes)
    }
}

/// The members of one stored JSON object, read by type with errors that name the member.
struct StoredObject {
    let members: [String: JSONValue]
    let path: String

    init(_ value: JSONValue, path: String) throws(StoredValueShapeError) {
        guard case .object(let members) = value else { throw StoredValueShapeError("\(path) is not an object") }
        self.members = members
        self.path = path
    }

    func member(_ key: String) throws(StoredValueShapeError) -> JSONValue {
        guard let value = members[key] else { throw StoredValueShapeError("\(path).\(key) is missing") }
        return value
    }

    func string(_ key: String) throws(StoredValueShapeError) -> String {
        guard case .string(let text) = try member(key) else { throw StoredValueShapeError("\(path).\(key) is not a string") }
        return text
    }

    /// Nil when the member is missing (written by a version without it), an error when it is
    /// there but not a string.
    func optionalString(_ key: String) throws(StoredValueShapeError) -> String? {
        guard members[key] != nil else { return nil }
        return try string(key)
    }

    func number(_ key: String) throws(StoredValueShapeError) -> Double {
        guard case .number(let number) = try member(key) else { throw StoredValueShapeError("\(path).\(key) is not a number") }
        return number
    }

    func integer(_ key: String) throws(StoredValueShapeError) -> Int64 {
        let number = try number(key)
        guard number.rounded() == number, abs(number) < 9.0e15 else { throw StoredValueShapeError("\(path).\(key) is not an integer") }
        return Int64(number)
    }

    func array(_ key: String) throws(StoredValueShapeError) -> [JSONValue] {
        guard case .array(let elements) = try member(key) else { throw StoredValueShapeError("\(path).\(key) is not an array") }
        return elements
    }

    func object(_ key: String) throws(StoredValueShapeError) -> [String: JSONValue] {
        guard case .object(let members) = try member(key) else { throw StoredValueShapeError("\(path).\(key) is not an object") }
        return members
    }

    /// RFC 3339 / ISO 8601, as `JSONEncoder`'s `.iso8601` writes it.
    func date(_ key: String) throws(StoredValueShapeError) -> Date {
        let text = try string(key)
        guard let date = try? Date.ISO8601FormatStyle().parse(text) else {
            throw StoredValueShapeError("\(path).\(key) is not an ISO 8601 time: \(text)")
        }
        return date
    }
}

/// A stored value that is valid JSON but not the shape Braid writes.
public struct StoredValueShapeError: Error, Sendable, Hashable, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// The one JSON dialect of values Braid stores in Redis.
enum StoredValueCoding {
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
