import Testing

@testable import BraidBenchmarks

@Suite("scale group: per-query medians, ratios and settings")
struct ScaleResultsTests {
    static let queries = [
        ScaleQuery(name: "curry", text: "curry", kind: "head", deep: true),
        ScaleQuery(name: "c", text: "c", kind: "short", mayBeEmpty: true),
    ]

    @Test func ratiosAreOfSumsOfPerQueryMedians() {
        var results = ScaleResults(queries: Self.queries)
        for (shape, query, values) in [
            (ScaleResults.Shape.liveOnly, "curry", [10.0, 12, 11]), (.liveOnly, "c", [40, 30, 50]),
            (.cold, "curry", [12, 13, 14]), (.cold, "c", [44, 40, 45]),
            (.warm, "curry", [9, 10, 11]), (.warm, "c", [41, 41, 41]),
            (.page50, "curry", [14, 16]),
            (.inline, "curry", [30, 20, 25]), (.inline, "c", [60, 80, 70]),
        ] {
            for value in values { results.record(size: 1_000_000, shape, query: query, milliseconds: value) }
        }
        for value in [2.0, 3, 4] { results.record(size: 20_000, .liveOnly, query: "curry", milliseconds: value) }
        for value in [5.0, 7, 6] { results.record(size: 20_000, .liveOnly, query: "c", milliseconds: value) }

        #expect(results.p50(size: 1_000_000, .liveOnly, query: "c") == 40)
        #expect(results.p50(size: 1_000_000, .page50, query: "c") == nil)
        #expect(results.count(size: 1_000_000, .cold) == 6)
        // (13 + 44) / (11 + 40)
        #expect(abs(results.coldRatio(size: 1_000_000) - 57.0 / 51.0) < 1e-9)
        // Only the walked query: 15 / 10.
        #expect(results.deepQueries(size: 1_000_000) == ["curry"])
        #expect(results.page50Ratio(size: 1_000_000) == 1.5)
        #expect(results.worst(size: 1_000_000)?.query == "c")
        #expect(abs(results.worstRatio(size: 1_000_000, headWord: "curry") - 40.0 / 11.0) < 1e-9)
        #expect(abs(results.liveRatio(large: 1_000_000, small: 20_000) - 51.0 / 9.0) < 1e-9)
        let figures = Dictionary(uniqueKeysWithValues: results.figures(size: 1_000_000).map { ($0.name, $0.value) })
        #expect(figures["scale.1m.live_only.c.p50_ms"] == "40.000")
        #expect(figures["scale.1m.page50.curry.p50_ms"] == "15.000")
        #expect(figures["scale.1m.page50.c.p50_ms"] == nil)
        #expect(figures["scale.1m.cold.sum_p50_ms"] == "57.000")
        // (25 + 70) / (11 + 40)
        #expect(abs(results.inlineRatio(size: 1_000_000) - 95.0 / 51.0) < 1e-9)
        #expect(figures["scale.1m.inline.sum_p50_ms"] == "95.000")
        #expect(figures["scale.20k.inline.sum_p50_ms"] == nil, "no inline samples at 20k: no sum printed")
        #expect(figures["scale.1m.live_only.curry.head_p99_ms"] == nil, "no head samples: no p99 printed")
    }

    @Test func theHeadWordsP99IsTheNearestRankOverItsOwnSamples() {
        var results = ScaleResults(queries: Self.queries)
        // 200 samples 1…200 ms, in reverse order: the p99 is the 198th smallest, the p50 the mean of the middle two.
        var values = (1...200).map(Double.init)
        values.reverse()
        for value in values { results.recordHead(size: 1_000_000, milliseconds: value) }
        let head = results.head(size: 1_000_000)
        #expect(head?.samples == 200 && head?.p50 == 100.5 && head?.p99 == 198)
        #expect(results.count(size: 1_000_000, .liveOnly) == 0, "the head samples are not page-1 samples of the set")
        let figures = Dictionary(uniqueKeysWithValues: results.figures(size: 1_000_000).map { ($0.name, $0.value) })
        #expect(figures["scale.1m.live_only.curry.head_samples"] == "200")
        #expect(figures["scale.1m.live_only.curry.head_p99_ms"] == "198.000")
        #expect(Statistics.percentile([5], 99) == 5 && Statistics.percentile([1, 2, 3, 4], 50) == 2)
    }

    @Test func sizeLabels() {
        #expect(ScaleQueries.label(20_000) == "20k")
        #expect(ScaleQueries.label(1_000_000) == "1m")
        #expect(ScaleQueries.label(1_500_000) == "1500k")
        #expect(ScaleQueries.label(12_345) == "12345")
    }

    @Test func queryPathsAreEncoded() {
        let cjk = ScaleQueries.all.first { $0.kind == "cjk" }!
        #expect(ScaleQueries.path(cjk) == "/v1/search?q=%E3%82%AB%E3%83%AC%E3%83%BC&per_page=20")
        let two = ScaleQuery(name: "curry_rice", text: "curry rice", kind: "head")
        #expect(ScaleQueries.path(two, cursor: "a+b/c") == "/v1/search?q=curry+rice&per_page=20&cursor=a%2Bb%2Fc")
        #expect(ScaleQueries.all.contains { $0.name == ScaleQueries.headWord })
        #expect(Set(ScaleQueries.all.map(\.kind)) == ["head", "torso", "tail", "short", "half", "stopwords", "long", "cjk", "cyrillic"])
        // The pathological shapes the issue asks for: one and two letters, a broad query.
        #expect(ScaleQueries.all.contains { $0.kind == "short" && $0.text.count == 1 })
        #expect(ScaleQueries.all.contains { $0.kind == "short" && $0.text.count == 2 })
        #expect(ScaleQueries.all.contains { $0.kind == "long" && $0.text.split(separator: " ").count > 4 })
    }

    @Test func sizesFromTheEnvironment() throws {
        #expect(try BenchmarkSettings(environment: [:]).scaleSizes == [20_000, 200_000, 1_000_000])
        #expect(try BenchmarkSettings(environment: ["BRAID_BENCH_SCALE_SIZES": "200000, 20000,20000"]).scaleSizes == [20_000, 200_000])
        for bad in ["20k", "5000", "20000,,", "20000000"] {
            #expect(throws: BenchmarkError.self) { try BenchmarkSettings(environment: ["BRAID_BENCH_SCALE_SIZES": bad]) }
        }
        #expect(try BenchmarkSettings(environment: [:]).scaleHeadSamples == 200)
        #expect(throws: BenchmarkError.self, "a p99 needs at least 100 samples") {
            try BenchmarkSettings(environment: ["BRAID_BENCH_SCALE_HEAD_SAMPLES": "99"])
        }
    }
}
