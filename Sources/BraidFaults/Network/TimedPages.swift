import BraidHarness
import BraidDevSupport
import Foundation
import Synchronization

/// Page-1 requests one after the other, each timed: what a partition scenario reads its
/// latencies, degraded pages and recovery from.
struct TimedPages: Sendable {
    struct Page: Sendable {
        var at: ContinuousClock.Instant
        var latency: Duration
        var status: Int
        var page: ServedPage?
        var degraded: Bool { page?.degraded ?? false }
        var interleaved: Bool { page?.hasSnapshotItems ?? false }
    }

    var baseURL: String
    var queries: [String]
    var perPage = 10

    /// Asks for page 1 of `queries` in turn, 5 ms apart, until `duration` has passed.
    func run(for duration: Duration) async -> [Page] {
        let end = ContinuousClock.now + duration
        return await run { ContinuousClock.now >= end }
    }

    /// Set by whoever decides the load is over.
    final class Stop: Sendable {
        private let flag = Atomic<Bool>(false)
        var isSet: Bool { flag.load(ordering: .relaxed) }
        func set() { flag.store(true, ordering: .relaxed) }
    }

    /// Asks for page 1 of `queries` in turn, 5 ms apart, until `stop` is set.
    func run(until stop: Stop) async -> [Page] {
        await run { stop.isSet }
    }

    private func run(until done: () -> Bool) async -> [Page] {
        var pages: [Page] = []
        var n = 0
        while !done() {
            let query = ServedPage.queryComponent(queries[n % queries.count])
            let began = ContinuousClock.now
            let response = try? await HTTPProbe.request("\(baseURL)/v1/search?q=\(query)&per_page=\(perPage)", timeout: .seconds(10))
            pages.append(
                Page(at: began, latency: .now - began, status: response?.status ?? 0, page: response.flatMap { ServedPage(json: $0.body) }))
            n += 1
            try? await Task.sleep(for: .milliseconds(5))
        }
        return pages
    }

    /// The `quantile` (0…1) of `latencies`, in milliseconds, one decimal.
    static func milliseconds(_ latencies: [Duration], quantile: Double) -> String {
        guard !latencies.isEmpty else { return "none" }
        let sorted = latencies.sorted()
        let value = sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * quantile).rounded()))]
        return String(format: "%.1f", Double(value.components.attoseconds) / 1e15 + Double(value.components.seconds) * 1000)
    }
}
