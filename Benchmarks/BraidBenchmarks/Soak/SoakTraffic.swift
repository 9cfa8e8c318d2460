import BraidHarness
import Foundation
import NIOHTTP1

/// The soak's mixed traffic on one gateway, from `concurrency` simulated clients until a
/// deadline. Each turn is one of: a search walk (page 1 and up to three more pages through
/// `next_cursor`, with an impression and a click posted for page 1), a feed (the layout, then a
/// batchGet of its components), or one component. Queries mix a few hot words with word pairs
/// drawn from a larger vocabulary, so most are seen rarely: each first miss is stored (the
/// configuration's admission threshold is 1) and a materialize request goes to the workers, and
/// the near-cache sees a stream of one-off snapshots beside hot ones. Users are drawn from the
/// corpus's 200, so components are read, missed and materialized per user.
struct SoakTraffic: Sendable {
    struct Counts: Sendable {
        var requests = 0
        var non2xx = 0
        var failures: [String] = []
    }

    let baseURL: String
    let feed: String
    let concurrency: Int

    static let hot = ["curry", "pasta", "chicken", "cake", "salmon", "soup"]
    static let vocabulary = [
        "apple", "basil", "bean", "beef", "bread", "butter", "carrot", "cheese", "chili", "chocolate", "coconut", "corn", "cream",
        "egg", "garlic", "ginger", "honey", "lamb", "lemon", "lentil", "lime", "mango", "miso", "mushroom", "noodle", "oat",
        "onion", "orange", "pea", "peanut", "pepper", "pork", "potato", "pumpkin", "rice", "salad", "sesame", "shrimp",
        "spinach", "tofu", "tomato", "vanilla", "yogurt", "zucchini", "bake", "grill", "roast", "stew", "quick", "spicy",
    ]

    func run(until deadline: ContinuousClock.Instant) async -> Counts {
        await withTaskGroup(of: Counts.self) { group in
            for client in 0..<concurrency {
                group.addTask {
                    var generator = SystemRandomNumberGenerator()
                    var counts = Counts()
                    var turn = 0
                    while ContinuousClock.now < deadline {
                        turn += 1
                        await self.turn(client: client, turn: turn, counts: &counts, using: &generator)
                    }
                    return counts
                }
            }
            var total = Counts()
            for await counts in group {
                total.requests += counts.requests
                total.non2xx += counts.non2xx
                total.failures += counts.failures.prefix(5)
            }
            return total
        }
    }

    private func turn(client: Int, turn: Int, counts: inout Counts, using generator: inout some RandomNumberGenerator) async {
        let user = "u\(Int.random(in: 1...200, using: &generator))"
        switch Int.random(in: 0..<10, using: &generator) {
        case 0..<5:
            let query = Double.random(in: 0..<1, using: &generator) < 0.3
                ? Self.hot.randomElement(using: &generator)!
                : "\(Self.vocabulary.randomElement(using: &generator)!) \(Self.vocabulary.randomElement(using: &generator)!)"
            await walk(query: query, session: "soak-\(client)-\(turn)", pages: Int.random(in: 1...4, using: &generator), counts: &counts)
        case 5..<8:
            _ = await get("/v1/feeds/\(feed)?user=\(user)", counts: &counts)
            let body = #"{"user":"\#(user)","components":["recommended","following","popular-dessert","carousel","new-arrivals","recipes"],"timeout_ms":2000}"#
            _ = await send("/v1/feeds/\(feed)/components:batchGet", method: .POST, body: Data(body.utf8), counts: &counts)
        default:
            _ = await get("/v1/feeds/\(feed)/components/recommended?user=\(user)", counts: &counts)
        }
    }

    private func walk(query: String, session: String, pages: Int, counts: inout Counts) async {
        var path = "/v1/search?q=\(GatewayFixture.quotePlus(query))&per_page=20&session=\(session)"
        for page in 1...pages {
            guard let json = await get(path, counts: &counts) else { return }
            if page == 1, let id = json["impression_id"] as? String, let first = (json["items"] as? [[String: Any]])?.first,
                let position = first["position"] as? Int
            {
                let events: [String: Any] = ["events": [
                    ["type": "impression", "impression_id": id], ["type": "click", "impression_id": id, "position": position],
                ]]
                if let body = try? JSONSerialization.data(withJSONObject: events) {
                    _ = await send("/v1/events", method: .POST, body: body, counts: &counts)
                }
            }
            guard let cursor = json["next_cursor"] as? String else { return }
            path = "/v1/search?q=\(GatewayFixture.quotePlus(query))&cursor=\(GatewayFixture.quotePlus(cursor))&session=\(session)"
        }
    }

    private func get(_ path: String, counts: inout Counts) async -> [String: Any]? {
        await send(path, method: .GET, body: nil, counts: &counts)
    }

    private func send(_ path: String, method: HTTPMethod, body: Data?, counts: inout Counts) async -> [String: Any]? {
        counts.requests += 1
        do {
            let response = try await HTTPProbe.request(
                baseURL + path, method: method, body: body, headers: body == nil ? [] : [("Content-Type", "application/json")],
                timeout: .seconds(30))
            guard (200..<300).contains(response.status) else {
                counts.non2xx += 1
                if counts.failures.count < 5 { counts.failures.append("\(method) \(path): \(response.status) \(response.text.prefix(200))") }
                return nil
            }
            return response.json
        } catch {
            counts.non2xx += 1
            if counts.failures.count < 5 { counts.failures.append("\(method) \(path): \(error)") }
            return nil
        }
    }
}
