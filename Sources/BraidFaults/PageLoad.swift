import BraidHarness
import BraidDevSupport
import Foundation

/// A steady load of page-1 requests on a gateway, one after the other.
struct PageLoad: Sendable {
    struct Counts: Sendable {
        var pages = 0
        var non200 = 0
        var degraded = 0
    }

    var baseURL: String
    /// Queries `<prefix> 0`, `<prefix> 1`, … `<prefix> <count-1>`, then again from 0.
    var prefix: String
    var count: Int
    /// What went wrong goes to this file.
    var errors: URL?

    /// GETs page 1 (`per_page` 10) of the `count` queries in turn, 5 ms apart, until all were
    /// asked and `duration` has passed.
    func run(for duration: Duration) async -> Counts {
        var counts = Counts()
        var problems: [String] = []
        let start = ContinuousClock.now
        var n = 0
        while n < count || ContinuousClock.now - start < duration {
            let query = ServedPage.queryComponent("\(prefix) \(n % max(count, 1))")
            do {
                let response = try await HTTPProbe.request("\(baseURL)/v1/search?q=\(query)&per_page=10", timeout: .seconds(10))
                if response.status == 200 {
                    if ServedPage(json: response.body)?.degraded == true { counts.degraded += 1 }
                } else {
                    counts.non200 += 1
                    problems.append("HTTP \(response.status): \(response.text.prefix(200))")
                }
            } catch {
                counts.non200 += 1
                problems.append("request failed: \(error)")
            }
            counts.pages += 1
            n += 1
            try? await Task.sleep(for: .milliseconds(5))
        }
        if let errors, !problems.isEmpty {
            try? problems.joined(separator: "\n").write(to: errors, atomically: true, encoding: .utf8)
        }
        return counts
    }
}
