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
        public var fields: [String: JSONValue]

        public init(id: String, score: Double, fields: [String: JSONValue] = [:]) {
            self.id = id
            self.score = score
            self.fields = fields
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

    public init(ranking: String, query: String, version: Int64, createdAt: Date, requestID: String, documents: [Document]) {
        self.schema = Self.schemaName
        self.ranking = ranking
        self.query = query
        self.version = version
        self.createdAt = createdAt
        self.requestID = requestID
        self.documents = documents
    }

    enum CodingKeys: String, CodingKey {
        case schema, ranking, query, version, documents
        case createdAt = "created_at"
        case requestID = "request_id"
    }

    /// The version a request produces: its `requested_at` in milliseconds, so a retried or
    /// replayed old request can never replace a newer snapshot. Rounded to the nearest
    /// millisecond, the precision of the wire format (a parsed `.874` is `.87399…` in binary).
    public static func version(for requestedAt: Date) -> Int64 {
        Int64((requestedAt.timeIntervalSince1970 * 1000).rounded())
    }
}

extension RankingSnapshot {
    /// Compact JSON with sorted keys and RFC 3339 times, as stored in Redis.
    public func encoded() throws -> Data {
        try StoredValueCoding.encoder().encode(self)
    }

    public static func decode(_ data: Data) throws -> RankingSnapshot {
        try StoredValueCoding.decoder().decode(RankingSnapshot.self, from: data)
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
