import Testing

@testable import BraidBenchmarks

@Suite("figures: formats, statistics, gateway means, round-by-round ratios and cold pages")
struct FiguresTests {
    @Test func formatsAsTheScriptsDid() {
        #expect(Format.pythonRound(2.5) == 2)
        #expect(Format.pythonRound(3.5) == 4)
        #expect(Format.pythonRound(252_235.4) == 252_235)
        #expect(Format.fixed(2.0 / 3.0, 3) == "0.667")
        #expect(Format.fixed(1.0, 3) == "1.000")
        #expect(PlanBenchmark.format(184.0) == "184.0")
        #expect(PlanBenchmark.format(5.66666) == "5.667")
    }

    @Test func medianOfOddAndEvenCounts() {
        #expect(Statistics.median([3, 1, 2]) == 2)
        #expect(Statistics.median([4, 1, 3, 2]) == 2.5)
        #expect(Statistics.mean([1, 2, 6]) == 3)
    }

    @Test func gatewayRatiosAreOfThePrintedMeans() {
        var results = GatewayResults()
        results.append("a", WrkResult(rps: "100.1", p99: "10.000", requests: 1001, p50: "5.000"))
        results.append("a", WrkResult(rps: "100.2", p99: "12.000", requests: 1002, p50: "5.000"))
        results.append("b", WrkResult(rps: "300.0", p99: "9.000", requests: 3000, p50: "4.000"))
        #expect(results.mean("a", \.rps) == "100.150")
        #expect(results.mean("a", \.p99) == "11.000")
        #expect(results.requests("a") == 2003)
        #expect(results.ratio("a", "b", \.rps) == "0.334")
        #expect(results.ratio("a", "b", \.p99) == "1.222")
    }

    @Test func gatewayRatiosAreMediansOfRoundByRoundRatios() {
        var results = GatewayResults()
        // Three rounds; the second disturbed on side a (a ratio of 0.5, where the others are 0.9 and 0.95).
        for (a, b) in [("90.0", "100.0"), ("50.0", "100.0"), ("95.0", "100.0")] {
            results.append("a", WrkResult(rps: a, p99: "10.000", requests: 1, p50: "1.000"))
            results.append("b", WrkResult(rps: b, p99: "8.000", requests: 1, p50: "1.000"))
        }
        #expect(results.pairedRatio("a", "b", \.rps) == "0.900")
        #expect(results.ratio("a", "b", \.rps) == "0.783")
        #expect(results.pairedRatio("a", "b", \.p99) == "1.250")
    }

    @Test func coldPagesCompareSumsOfPerQueryMedians() {
        var cold = ColdPages(queries: ["curry", "miso soup"])
        func result(_ p50: String, _ requests: Int = 100) -> WrkResult { WrkResult(rps: "1.0", p99: "1.000", requests: requests, p50: p50) }
        for (side, query, p50) in [
            (ColdPages.Side.cold, 0, "6.000"), (.cold, 0, "5.000"), (.cold, 0, "9.000"),
            (.cold, 1, "4.000"), (.cold, 1, "4.000"), (.cold, 1, "1.000"),
            (.coldLiveOnly, 0, "5.000"), (.coldLiveOnly, 0, "5.000"), (.coldLiveOnly, 0, "1.000"),
            (.coldLiveOnly, 1, "3.000"), (.coldLiveOnly, 1, "3.500"), (.coldLiveOnly, 1, "3.000"),
        ] {
            cold.record(side, query: query, result(p50))
        }
        #expect(cold.coldPages == 600)
        #expect(cold.medians(.cold) == [6, 4])
        let lines = cold.lines().map { "\($0.kind) \($0.name) \($0.value)" }
        #expect(
            lines == [
                "FIGURE gateway.cold.curry.median_p50_ms 6.000",
                "FIGURE gateway.cold_live_only.curry.median_p50_ms 5.000",
                "FIGURE gateway.cold.miso_soup.median_p50_ms 4.000",
                "FIGURE gateway.cold_live_only.miso_soup.median_p50_ms 3.000",
                "FIGURE gateway.cold.sum_median_p50_ms 10.000",
                "FIGURE gateway.cold_live_only.sum_median_p50_ms 8.000",
                "RATIO gateway.cold_p50.vs_live_only 1.250",
            ])
    }
}
