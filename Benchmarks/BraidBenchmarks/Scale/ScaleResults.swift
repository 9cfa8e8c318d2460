import Foundation

/// The scale group's samples (one timed request each, in ms) and what it prints from them:
/// each query's p50 per corpus size and page shape, the head word's p99, and the ratios. Pure, so the
/// arithmetic is tested without a server.
struct ScaleResults {
    enum Shape: String, CaseIterable, Sendable {
        /// Page 1 on the gateway with interleaving off (no Redis).
        case liveOnly = "live_only"
        /// Page 1 interleaved, the snapshot read from Redis on every page (near-cache and pointer cache off).
        case cold
        /// Page 1 interleaved, the snapshot in the near-cache.
        case warm
        /// Page 1 interleaved, its snapshot computed inline by the request (the gateway's keys
        /// in Redis removed before each one): a query's first page.
        case inline
        /// Page 50 of a walk on the warm gateway, reached through `next_cursor`: only its request is timed.
        case page50
    }

    private struct Key: Hashable {
        var size: Int
        var shape: Shape
        var query: String
    }

    let queries: [ScaleQuery]
    private var samples: [Key: [Double]] = [:]
    /// Per size, the head word's live-only page-1 samples taken for its p99.
    private var headSamples: [Int: [Double]] = [:]

    init(queries: [ScaleQuery]) {
        self.queries = queries
    }

    mutating func record(size: Int, _ shape: Shape, query: String, milliseconds: Double) {
        samples[Key(size: size, shape: shape, query: query), default: []].append(milliseconds)
    }

    mutating func recordHead(size: Int, milliseconds: Double) {
        headSamples[size, default: []].append(milliseconds)
    }

    /// The head word's live-only page 1 at `size` over its own samples: their number, p50 and p99.
    func head(size: Int) -> (samples: Int, p50: Double, p99: Double)? {
        guard let values = headSamples[size], !values.isEmpty else { return nil }
        return (values.count, Statistics.median(values), Statistics.percentile(values, 99))
    }

    func count(size: Int, _ shape: Shape) -> Int {
        samples.filter { $0.key.size == size && $0.key.shape == shape }.reduce(0) { $0 + $1.value.count }
    }

    /// The median of a query's samples, nil when it has none.
    func p50(size: Int, _ shape: Shape, query: String) -> Double? {
        guard let values = samples[Key(size: size, shape: shape, query: query)], !values.isEmpty else { return nil }
        return Statistics.median(values)
    }

    /// The sum of the p50s of `queries` (all of the set by default) that have samples.
    func sum(size: Int, _ shape: Shape, queries names: [String]? = nil) -> Double {
        (names ?? queries.map(\.name)).compactMap { p50(size: size, shape, query: $0) }.reduce(0, +)
    }

    /// The queries walked to page 50 at `size`.
    func deepQueries(size: Int) -> [String] {
        queries.map(\.name).filter { p50(size: size, .page50, query: $0) != nil }
    }

    /// The slowest query of the set on live-only pages at `size`, and its p50.
    func worst(size: Int) -> (query: String, p50: Double)? {
        var worst: (query: String, p50: Double)?
        for query in queries {
            guard let value = p50(size: size, .liveOnly, query: query.name) else { continue }
            if worst.map({ value > $0.p50 }) ?? true { worst = (query.name, value) }
        }
        return worst
    }

    /// Cold interleaved ÷ live-only page 1, sums of p50s over the set.
    func coldRatio(size: Int) -> Double { sum(size: size, .cold) / sum(size: size, .liveOnly) }

    /// A first page that computes its snapshot ÷ live-only page 1, sums of p50s over the set.
    func inlineRatio(size: Int) -> Double { sum(size: size, .inline) / sum(size: size, .liveOnly) }

    /// Page 50 ÷ page 1 of the same queries, both interleaved on the warm gateway.
    func page50Ratio(size: Int) -> Double {
        let deep = deepQueries(size: size)
        return sum(size: size, .page50, queries: deep) / sum(size: size, .warm, queries: deep)
    }

    /// The slowest query ÷ the head word, live-only page 1.
    func worstRatio(size: Int, headWord: String) -> Double {
        guard let worst = worst(size: size), let head = p50(size: size, .liveOnly, query: headWord) else { return .nan }
        return worst.p50 / head
    }

    /// Live-only page 1 at `large` ÷ at `small`, sums of p50s over the set.
    func liveRatio(large: Int, small: Int) -> Double { sum(size: large, .liveOnly) / sum(size: small, .liveOnly) }

    /// Every query's p50 per shape at `size`, the sums, and the head word's own samples.
    func figures(size: Int) -> [(name: String, value: String)] {
        let label = ScaleQueries.label(size)
        var lines: [(String, String)] = []
        for query in queries {
            for shape in Shape.allCases {
                guard let value = p50(size: size, shape, query: query.name) else { continue }
                lines.append(("scale.\(label).\(shape.rawValue).\(query.name).p50_ms", Format.fixed(value, 3)))
            }
        }
        for shape in [Shape.liveOnly, .cold, .warm, .inline] where count(size: size, shape) > 0 {
            lines.append(("scale.\(label).\(shape.rawValue).sum_p50_ms", Format.fixed(sum(size: size, shape), 3)))
        }
        if let head = head(size: size) {
            let prefix = "scale.\(label).live_only.\(ScaleQueries.headWord)"
            lines.append(("\(prefix).head_samples", "\(head.samples)"))
            lines.append(("\(prefix).head_p50_ms", Format.fixed(head.p50, 3)))
            lines.append(("\(prefix).head_p99_ms", Format.fixed(head.p99, 3)))
        }
        return lines
    }
}
