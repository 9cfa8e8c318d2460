import BraidCore
import Foundation

/// Reads an Elasticsearch/OpenSearch `_search` response. Pure.
///
/// `hits.total` is an object `{"value": n, "relation": "eq"}` on current versions and a bare
/// number on Elasticsearch 6; both are accepted. A hit's score is `_score`, or its first sort
/// value when sorted by a field (`_score` is then null); a missing `_source` gives no fields.
public enum ElasticsearchResponse {
    public static func parse(_ data: Data) throws -> SearchResult {
        guard let root = try? JSONDecoder().decode(JSONValue.self, from: data) else {
            throw SearchSourceError(.badResponse, "search response is not JSON: \(JSONHTTPTransport.excerpt(data))")
        }
        guard case .object(let hitsObject)? = root["hits"] else {
            throw SearchSourceError(.badResponse, "search response has no \"hits\" object")
        }
        let total: Int
        switch hitsObject["total"] {
        case .number(let value)?: total = Int(value)
        case .object(let object)?:
            guard let value = object["value"]?.numberValue else {
                throw SearchSourceError(.badResponse, "\"hits.total\" has no \"value\"")
            }
            total = Int(value)
        default:
            throw SearchSourceError(.badResponse, "search response has no \"hits.total\" (is track_total_hits off?)")
        }
        guard case .array(let entries)? = hitsObject["hits"] else {
            throw SearchSourceError(.badResponse, "search response has no \"hits.hits\" array")
        }
        let hits = try entries.enumerated().map { index, entry in
            guard let id = entry["_id"]?.stringValue else {
                throw SearchSourceError(.badResponse, "hit \(index) has no \"_id\"")
            }
            var fields: [String: JSONValue] = [:]
            if case .object(let source)? = entry["_source"] { fields = source }
            return SearchHit(id: id, score: score(of: entry), fields: fields)
        }
        return SearchResult(hits: hits, total: max(total, 0))
    }

    static func score(of entry: JSONValue) -> Double {
        if let score = entry["_score"]?.numberValue { return score }
        if case .array(let sort)? = entry["sort"], let first = sort.first?.numberValue { return first }
        return 0
    }
}
