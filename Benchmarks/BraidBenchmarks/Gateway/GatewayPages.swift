import Foundation

/// What the gateway group checks its pages are before it measures them, on their JSON.
enum GatewayPages {
    enum Kind {
        /// Live results and cached ones from a snapshot.
        case interleaved
        /// Live results only, no snapshot.
        case live
    }

    /// Whether a search page has 20 items and is of `kind`.
    static func isPage(_ body: Data, _ kind: Kind) -> Bool {
        guard let page = object(body), let items = page["items"] as? [[String: Any]],
            let interleaving = page["interleaving"] as? [String: Any], interleaving.keys.contains("snapshot")
        else { return false }
        let hasSnapshot = !(interleaving["snapshot"] is NSNull)
        let sources = Set(items.compactMap { $0["source"] as? String })
        guard items.count == 20, items.allSatisfy({ $0["source"] is String }) else { return false }
        switch kind {
        case .interleaved: return hasSnapshot && sources == ["live", "cached"]
        case .live: return !hasSnapshot && sources == ["live"]
        }
    }

    /// Whether every entry of a batchGet of the group's six components is ready and came
    /// from the cache.
    static func isAllCached(_ body: Data) -> Bool {
        guard let entries = object(body)?["components"] as? [[String: Any]] else { return false }
        return entries.count == 6 && entries.allSatisfy { $0["status"] as? String == "ready" && $0["source"] as? String == "cached" }
    }

    /// Whether a component's first page came from the cache with 10 items.
    static func isCachedComponent(_ body: Data) -> Bool {
        guard let entry = object(body) else { return false }
        return entry["source"] as? String == "cached" && (entry["items"] as? [Any])?.count == 10
    }

    private static func object(_ body: Data) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
    }
}
