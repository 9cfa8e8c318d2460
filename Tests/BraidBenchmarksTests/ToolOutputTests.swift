import Testing

@testable import BraidBenchmarks

@Suite("redis-benchmark, Prometheus, free and simulation output")
struct ToolOutputTests {
    @Test func redisBenchmarkGetFigureIsTheSecondCSVField() {
        let csv = """
            "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
            "GET","79936.05","0.331","0.080","0.303","0.487","0.839","3.295"
            """
        #expect(RedisBenchmarkTool.getFigure(csv: csv) == "79936.05")
        #expect(RedisBenchmarkTool.getFigure(csv: "\"SET\",\"1.0\"") == nil)
        #expect(RedisBenchmarkTool.integerPart("79936.05") == "79936")
        #expect(RedisBenchmarkTool.integerPart("80000") == "80000")
    }

    @Test func prometheusSumsWithAndWithoutLabels() {
        let text = """
            # TYPE braid_worker_processed_total counter
            braid_worker_processed_total{outcome="ok"} 120
            braid_worker_processed_total{outcome="failed"} 3
            braid_worker_processed_totals 1000
            braid_gateway_near_cache_misses_total 7
            braid_gateway_near_cache_misses_total{gateway="a"} 5
            """
        #expect(PrometheusText.sum("braid_worker_processed_total", in: text) == 123)
        #expect(PrometheusText.sum(prefix: "braid_worker_processed_total", in: text) == 1123)
        #expect(PrometheusText.sum("braid_gateway_near_cache_misses_total", in: text) == 12)
        #expect(PrometheusText.sumUnlabelled("braid_gateway_near_cache_misses_total", in: text) == 7)
        #expect(PrometheusText.sum("braid_gateway_degraded_pages_total", in: text) == 0)
    }

    @Test func machineMemoryIsTheTotalOfTheMemRow() {
        let free = """
                           total        used        free      shared  buff/cache   available
            Mem:              23           5           2           0          16          17
            Swap:              0           0           0
            """
        #expect(Machine.memory(fromFree: free) == "23")
    }

    @Test func evaluationNeedsEveryRatioLine() throws {
        let lines = [
            "FIGURE evaluation.seconds 12.0",
            "RATIO evaluation.ab_sessions.over_interleaving 9.1",
            "RATIO evaluation.null_false_positive_rate 0.05",
            "RATIO evaluation.peeking_fpr.fixed 0.25",
            "RATIO evaluation.peeking_fpr.sequential 0.035",
            "RATIO evaluation.sequential_sessions.over_fixed 0.76",
            "RATIO evaluation.sequential_sessions.over_fixed_2x 0.32",
            "RATIO evaluation.calibration_error 0.03",
        ]
        try EvaluationGroup.check(lines.joined(separator: "\n"))
        // Any RATIO line missing fails the group.
        for missing in lines.indices.dropFirst() {
            var partial = lines
            partial.remove(at: missing)
            #expect(throws: BenchmarkError.self, "without \(lines[missing])") { try EvaluationGroup.check(partial.joined(separator: "\n")) }
        }
    }
}
