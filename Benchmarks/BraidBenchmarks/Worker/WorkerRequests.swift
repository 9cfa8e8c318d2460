import BraidContracts
import BraidCore
import Foundation

/// The requests both sides of the worker benchmark materialize: `count` ranking requests
/// over 400 two-word queries of common recipe words. Versions grow with the index, so a
/// repeated query is a refresh (a full-text query and a snapshot write), never skipped.
enum WorkerRequests {
    static let words = [
        "curry", "rice", "chicken", "miso", "soup", "salad", "pasta", "tofu", "egg", "beef",
        "pork", "noodle", "cake", "bread", "tomato", "potato", "onion", "garlic", "ginger", "cheese",
    ]

    static func make(count: Int, at base: Date) -> [PrecomputeRequest] {
        let start = (base.timeIntervalSince1970 * 1000).rounded(.down)
        return (0..<count).map { i in
            let query = "\(words[i % words.count]) \(words[(i / words.count) % words.count])"
            return PrecomputeRequest(
                body: .ranking(.init(ranking: "featured", query: query, size: 30)),
                requestedAt: Date(timeIntervalSince1970: (start + Double(i)) / 1000))
        }
    }
}
