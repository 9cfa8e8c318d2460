import BraidCore
import Foundation

/// The wire contract of a generic HTTP ranking service (`Schemas/ranking-source.schema.json`):
/// Braid POSTs a ``Request`` and expects `{"total": n, "hits": [{"id", "score"?, "fields"?}],
/// "match_generation"?}`. Pure encoding and decoding.
///
/// Version 2 adds the optional request field `ids` (only these documents), sent only when a walk
/// serves a page again; every request says its version in the header ``versionHeader``. A
/// version 1 service keeps working: one that ignores `ids` answers the request as if it were
/// absent (which Braid filters), one that refuses it (400 or 422) is asked again without it.
public enum RankingServiceContract {
    /// The contract version Braid speaks.
    public static let version = 2
    /// The request header that carries ``version``.
    public static let versionHeader = "Braid-Ranking-Contract"

    public struct Request: Sendable, Hashable, Codable {
        /// Normalised query text (``QueryNormalizer``).
        public var query: String
        public var excluding: [String]
        public var from: Int
        public var size: Int
        /// `relevance`, `popularity_boosted` or `newest`.
        public var profile: String
        /// Version 2: only these documents (absent: all).
        public var ids: [String]?

        public init(_ request: SearchRequest) {
            ids = request.ids
            query = QueryNormalizer.normalize(request.query)
            excluding = request.excluding
            from = request.from
            size = request.size
            profile = request.profile.rawValue
        }
    }

    public static func encode(_ request: SearchRequest) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(Request(request))
    }

    /// Reads a response, parsed with ``JSONValue/parse(_:)``: through `JSONDecoder` the hits'
    /// display fields are a large share of a worker's CPU time.
    public static func decode(_ data: Data) throws -> SearchResult {
        func bad(_ reason: String) -> SearchSourceError {
            SearchSourceError(.badResponse, "ranking service response does not follow the contract: \(reason)")
        }
        let parsed: JSONValue
        do {
            parsed = try JSONValue.parse(data)
        } catch {
            throw bad("\(error)")
        }
        guard case .object(let body) = parsed else { throw bad("not a JSON object") }
        guard case .number(let totalNumber) = body["total"] ?? .null else { throw bad("\"total\" is missing or not a number") }
        guard totalNumber.rounded() == totalNumber, abs(totalNumber) < 9.0e15 else { throw bad("\"total\" is not an integer") }
        guard totalNumber >= 0 else { throw SearchSourceError(.badResponse, "\"total\" is negative") }
        guard case .array(let elements) = body["hits"] ?? .null else { throw bad("\"hits\" is missing or not an array") }
        var hits: [SearchHit] = []
        hits.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            guard case .object(let hit) = element else { throw bad("hits[\(index)] is not an object") }
            guard case .string(let id) = hit["id"] ?? .null else { throw bad("hits[\(index)].id is missing or not a string") }
            guard !id.isEmpty else { throw SearchSourceError(.badResponse, "a hit has an empty \"id\"") }
            // Absent and null mean the defaults, as the contract says.
            let score: Double
            switch hit["score"] ?? .null {
            case .null: score = 0
            case .number(let number): score = number
            default: throw bad("hits[\(index)].score is not a number")
            }
            let fields: [String: JSONValue]
            switch hit["fields"] ?? .null {
            case .null: fields = [:]
            case .object(let members): fields = members
            default: throw bad("hits[\(index)].fields is not an object")
            }
            hits.append(SearchHit(id: id, score: score, fields: fields))
        }
        // The service's promise, taken as given (``SearchResult/matchGeneration``).
        let generation: String?
        switch body["match_generation"] ?? .null {
        case .null: generation = nil
        case .string(let text) where !text.isEmpty: generation = text
        default: throw bad("\"match_generation\" is not a non-empty string")
        }
        return SearchResult(hits: hits, total: Int(totalNumber), matchGeneration: generation)
    }
}
