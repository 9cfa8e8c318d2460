import Foundation

/// The cold-page measurement: each query on its own, cold gateway and live-only gateway, in
/// rounds; the ratio compares the sums over queries of each side's median p50 over rounds.
struct ColdPages {
    enum Side: String, CaseIterable {
        case cold
        case coldLiveOnly = "cold_live_only"
    }

    struct Sample {
        var side: Side
        var query: Int
        /// The p50 as wrk's result kept it (`%.3f` ms).
        var p50: Double
        var requests: Int
    }

    let queries: [String]
    private(set) var samples: [Sample] = []

    init(queries: [String]) {
        self.queries = queries
    }

    mutating func record(_ side: Side, query: Int, _ result: WrkResult) {
        samples.append(Sample(side: side, query: query, p50: Double(result.p50) ?? .nan, requests: result.requests))
    }

    /// Pages the cold gateway served.
    var coldPages: Int { samples.filter { $0.side == .cold }.reduce(0) { $0 + $1.requests } }

    /// Each query's median p50 over rounds, per side.
    func medians(_ side: Side) -> [Double] {
        queries.indices.map { query in Statistics.median(samples.filter { $0.side == side && $0.query == query }.map(\.p50)) }
    }

    /// The FIGURE and RATIO lines: each query's two sides, then the sums, then the ratio.
    func lines() -> [(kind: String, name: String, value: String)] {
        let cold = medians(.cold)
        let live = medians(.coldLiveOnly)
        var lines: [(String, String, String)] = []
        for (index, query) in queries.enumerated() {
            let name = query.replacingOccurrences(of: " ", with: "_")
            lines.append(("FIGURE", "gateway.cold.\(name).median_p50_ms", Format.fixed(cold[index], 3)))
            lines.append(("FIGURE", "gateway.cold_live_only.\(name).median_p50_ms", Format.fixed(live[index], 3)))
        }
        let coldSum = cold.reduce(0, +)
        let liveSum = live.reduce(0, +)
        lines.append(("FIGURE", "gateway.cold.sum_median_p50_ms", Format.fixed(coldSum, 3)))
        lines.append(("FIGURE", "gateway.cold_live_only.sum_median_p50_ms", Format.fixed(liveSum, 3)))
        lines.append(("RATIO", "gateway.cold_p50.vs_live_only", Format.fixed(coldSum / liveSum, 3)))
        return lines
    }
}
