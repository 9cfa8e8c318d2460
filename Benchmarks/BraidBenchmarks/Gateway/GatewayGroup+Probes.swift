import BraidContracts
import BraidHarness
import Foundation
import NIOHTTP1

/// What the gateway group reads from its gateways besides the load: the batchGet, the
/// counters of /metrics, peak memory, and warnings in the logs.
extension GatewayGroup {
    /// Polls a batchGet of the six components until every entry is ready and cached (60 s).
    func waitUntilAllCached(_ batchURL: String) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            let batch = try? await HTTPProbe.request(batchURL, method: .POST, body: Data(GatewayFixture.batchBody.utf8))
            if let batch, (200..<300).contains(batch.status), GatewayPages.isAllCached(batch.body) { return }
            guard ContinuousClock.now < deadline else {
                throw BenchmarkError("batchGet entries not all cached after 60 s: \(batch?.text.prefix(600) ?? "no answer")")
            }
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    /// ``counters`` of a gateway's /metrics, each summed over its labels.
    func counters(_ gateway: BraidService) async throws -> [String: Int] {
        let text = try await metrics(gateway)
        return Dictionary(uniqueKeysWithValues: Self.counters.map { ($0, Int(PrometheusText.sum($0, in: text))) })
    }

    /// Snapshots the cold gateway read from Redis (near-cache misses, the unlabelled sample).
    func coldMisses(_ gateway: BraidService) async throws -> Int {
        Int(PrometheusText.sumUnlabelled(MetricName.gatewayNearCacheMisses.rawValue, in: try await metrics(gateway)))
    }

    /// Requests the gateway refused with 429.
    func rejections(_ gateway: BraidService) async throws -> Int {
        Int(PrometheusText.sum(MetricName.gatewayRateLimitRejections.rawValue, in: try await metrics(gateway)))
    }

    func metrics(_ gateway: BraidService) async throws -> String {
        let response = try await HTTPProbe.request("\(gateway.baseURL)/metrics")
        guard response.status == 200 else { throw BenchmarkError("GET \(gateway.baseURL)/metrics answered \(response.status)") }
        return response.text
    }

    /// VmHWM of a process, KiB.
    func peakResidentKiB(_ pid: pid_t) throws -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            if let kib = line.split(whereSeparator: \.isWhitespace).dropFirst().first.flatMap({ Int($0) }) { return kib }
        }
        throw BenchmarkError("no VmHWM for the interleaved gateway (pid \(pid))")
    }

    /// Says (without failing) when a gateway logged warnings or errors, with the first five.
    func reportWarnings(_ service: BraidService) {
        guard let log = service.process.log, let text = try? String(contentsOf: log, encoding: .utf8) else { return }
        let lines = text.split(separator: "\n").filter { $0.contains("warning") || $0.contains("error") || $0.contains("critical") }
        guard !lines.isEmpty else { return }
        context.say("\(log.lastPathComponent) has warnings or errors:\n" + lines.prefix(5).joined(separator: "\n"))
    }
}
