import Foundation

/// Precompute requests as JSON Lines (`Schemas/request.schema.json`), for `braid publish --file`:
/// one process publishes them all, instead of one `braid publish` per request.
public enum DemoRequests {
    /// A ranking request of `ranking` for `query`.
    public static func ranking(_ query: String, ranking: String = "featured", size: Int? = nil) -> String {
        var body: [String: Any] = ["id": ranking, "query": query]
        if let size { body["size"] = size }
        return line(["kind": "ranking", "ranking": body])
    }

    /// A component request; `scope` holds one of `user`, `segment`, `category`.
    public static func component(feed: String, type: String, scope: [String: String]) -> String {
        line(["kind": "component", "component": ["feed": feed, "type": type, "scope": scope]])
    }

    /// What `make run` publishes: snapshots for the demo queries, home and profile components
    /// of every kind for `users` (authors too in the seeded corpus, so profiles have content),
    /// a category and the segment-wide components.
    public static func demo(queries: [String] = demoQueries, users: [String] = ["u00001", "u00002", "u00003"]) -> [String] {
        var lines = queries.map { ranking($0) }
        for user in users {
            for type in ["recommended_recipes", "followed_authors_new", "recommended_creators", "user_stats"] {
                lines.append(component(feed: "home", type: type, scope: ["user": user]))
            }
            for type in ["profile_header", "profile_tabs", "profile_recipes", "profile_cooksnaps"] {
                lines.append(component(feed: "profile", type: type, scope: ["user": user]))
            }
        }
        lines.append(component(feed: "home", type: "popular_in_category", scope: ["category": "dessert"]))
        for type in ["carousel", "new_arrivals", "banner", "interleaved_recipes"] {
            lines.append(component(feed: "home", type: type, scope: ["segment": "all"]))
        }
        return lines
    }

    /// The queries `make run` materializes snapshots for.
    public static let demoQueries = ["curry rice", "カレー", "chicken", "miso soup", "pasta", "cake"]

    /// Writes `lines` to `file`, one per line.
    public static func write(_ lines: [String], to file: URL) throws(HarnessError) {
        do {
            try (lines.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        } catch {
            throw .failed("cannot write \(file.path): \(error)")
        }
    }

    private static func line(_ fields: [String: Any]) -> String {
        var message = fields
        message["schema"] = "braid.request/v1"
        message["id"] = UUID().uuidString.lowercased()
        message["requested_at"] = timestamp(Date())
        let data = (try? JSONSerialization.data(withJSONObject: message, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// `2026-11-22T10:00:00.123Z`: milliseconds, UTC.
    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
