import BraidCore
import Foundation

/// The wire contract of a generic HTTP ranking service (`Schemas/ranking-source.schema.json`):
/// Braid POSTs a ``Request`` and expects a ``Response``. Pure encoding and decoding.
public enum RankingServiceContract {
    public struct Request: Sendable, Hashable, Codable {
        /// Normalised query text (``QueryNormalizer``).
        public var query: String
        public var excluding: [String]
        public var from: Int
        public var size: Int
        /// `relevance`, `popularity_boosted` or `newest`.
        public var profile: String

        public init(_ request: SearchRequest) {
            query = QueryNormalizer.normalize(request.query)
            excluding = request.excluding
            from = request.from
            size = request.size
            profile = request.profile.rawValue
        }
    }

    public struct Response: Sendable, Hashable, Decodable {
        public struct Hit: Sendable, Hashable, Decodable {
            public var id: String
            public var score: Double
            public var fields: [String: JSONValue]

            enum CodingKeys: String, CodingKey { case id, score, fields }

            public init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                id = try container.decode(String.self, forKey: .id)
                score = try container.decodeIfPresent(Double.self, forKey: .score) ?? 0
                fields = try container.decodeIfPresent([String: JSONValue].self, forKey: .fields) ?? [:]
            }
        }

        public var total: Int
        public var hits: [Hit]
    }

    public static func encode(_ request: SearchRequest) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(Request(request))
    }

    public static func decode(_ data: Data) throws -> SearchResult {
        let response: Response
        do {
            response = try JSONDecoder().decode(Response.self, from: data)
        } catch {
            throw SearchSourceError(.badResponse, "ranking service response does not follow the contract: \(error)")
        }
        guard response.total >= 0 else { throw SearchSourceError(.badResponse, "\"total\" is negative") }
        guard response.hits.allSatisfy({ !$0.id.isEmpty }) else { throw SearchSourceError(.badResponse, "a hit has an empty \"id\"") }
        return SearchResult(hits: response.hits.map { SearchHit(id: $0.id, score: $0.score, fields: $0.fields) }, total: response.total)
    }
}
