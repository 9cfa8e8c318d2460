import Foundation

/// A `GET /v1/search` page as a client received it, as far as session checks read it.
public struct ServedPage: Sendable {
    public struct Item: Sendable {
        public var id: String
        public var position: Int
        /// `A` (live) or `B` (the snapshot); nil when absent.
        public var team: String?
        /// `live` or `cached`.
        public var source: String?
    }

    public var items: [Item]
    public var degraded: Bool
    /// `interleaving.snapshot`: the snapshot version the page interleaves, nil when live-only.
    public var snapshot: Int64?
    public var nextCursor: String?
    /// `walk`: `exact`, `offset`, `lost` or `capped` (README, "Walks"); nil when absent.
    public var walk: String?

    /// Reads a page from its JSON body; nil when the body is not a page.
    public init?(json data: Data) {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let items = object["items"] as? [[String: Any]] else {
            return nil
        }
        var parsed: [Item] = []
        for item in items {
            guard let id = item["id"] as? String, let position = item["position"] as? Int else { return nil }
            parsed.append(Item(id: id, position: position, team: item["team"] as? String, source: item["source"] as? String))
        }
        self.items = parsed
        degraded = object["degraded"] as? Bool ?? false
        snapshot = ((object["interleaving"] as? [String: Any])?["snapshot"] as? NSNumber)?.int64Value
        nextCursor = object["next_cursor"] as? String
        walk = object["walk"] as? String
    }

    /// Whether the page shows documents of the snapshot (team B).
    public var hasSnapshotItems: Bool { items.contains { $0.team == "B" } }

    /// `text` as one component of a URL query (everything but unreserved characters escaped).
    public static func queryComponent(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    private static let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
}
