import Foundation
import Testing
import Yams

/// The shipped alert rules read only metrics the code exports, and watch the counters that
/// say a fleet-wide mechanism fell back to per-gateway behaviour.
@Suite("Prometheus rules")
struct PrometheusRulesTests {
    @Test func rulesQueryOnlyExportedMetricsAndWatchTheFallbacks() throws {
        let text = try String(contentsOf: Deploy.root.appendingPathComponent("Deploy/prometheus/braid-rules.yaml"), encoding: .utf8)
        let document = Yaml.normalise(try #require(try Yams.load(yaml: text)))
        let rules = Yaml.list(Yaml.value(document, "groups")).flatMap { Yaml.list(Yaml.value($0, "rules")) }
        var alerts: [String: String] = [:]
        for rule in rules {
            let name = try #require(Yaml.string(Yaml.value(rule, "alert")), "a rule without an alert name")
            alerts[name] = try #require(Yaml.string(Yaml.value(rule, "expr")), "alert \(name) has no expr")
            #expect(Yaml.string(Yaml.value(rule, "labels", "severity")) != nil, "alert \(name) has no severity")
        }
        let exported = try Deploy.exportedMetricNames()
        let used = try Deploy.metricNames(in: Array(alerts.values), exported: exported)
        for name in used { #expect(exported.contains(name), "a rule reads \(name), which no code exports") }
        #expect(alerts["BraidRateLimitsNotShared"]?.contains("braid_gateway_rate_limit_shared_unavailable_total") == true)
        #expect(alerts["BraidRedisEvictionPolicyUnsafe"]?.contains("braid_redis_eviction_policy_unsafe") == true)
        #expect(alerts["BraidRetentionSweepFailing"]?.contains("braid_worker_retention_sweeps_total") == true)
    }
}
