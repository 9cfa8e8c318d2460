@testable import BraidConfig
import Foundation
import Testing
import Yams

/// The Grafana dashboard queries only metrics the code exports, and shows the important ones.
@Suite("Grafana dashboard")
struct DashboardTests {
    @Test func dashboardQueriesOnlyExportedMetrics() throws {
        let data = try Data(contentsOf: Deploy.root.appendingPathComponent("Deploy/grafana/braid-dashboard.json"))
        let dashboard = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let panels = dashboard["panels"] as? [[String: Any]] ?? []
        let expressions = panels.flatMap { ($0["targets"] as? [[String: Any]] ?? []).compactMap { $0["expr"] as? String } }
        #expect(expressions.count >= 6)
        let exported = try Deploy.exportedMetricNames()
        let used = try Deploy.metricNames(in: expressions, exported: exported)
        for name in used { #expect(exported.contains(name), "the dashboard queries \(name), which no code exports") }
        for needed in [
            "braid_http_requests_total", "braid_http_request_duration_seconds", "braid_gateway_near_cache_hits_total",
            "braid_gateway_degraded_pages_total", "braid_kafka_consumer_lag", "braid_worker_dead_lettered_total",
        ] {
            #expect(used.contains(needed), "the dashboard does not show \(needed)")
        }
    }
}
