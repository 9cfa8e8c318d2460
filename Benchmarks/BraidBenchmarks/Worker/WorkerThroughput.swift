import BraidConfig
import BraidContracts
import BraidHarness
import Foundation

/// Materializations per second of running `braid worker` processes, read from their
/// `/metrics`: the clock runs from the first materialization a poll sees to the last, so it
/// measures throughput once the work flows, without the publisher's start-up.
struct WorkerThroughput {
    let context: BenchmarkContext

    /// The sum of `braid_worker_processed_total` over the workers' metrics ports (a port that
    /// does not answer counts 0).
    func processed(_ ports: [Int]) async -> Int {
        var total = 0
        for port in ports {
            let text = (try? await HTTPProbe.request("http://127.0.0.1:\(port)/metrics").text) ?? ""
            total += Int(PrometheusText.sum(prefix: MetricName.workerProcessed.rawValue, in: text))
        }
        return total
    }

    /// Publishes `count` requests with `configuration` (its requests topic and key prefix) and
    /// returns the workers' materializations per second, first to last, read from `ports`.
    func throughKafka(_ configuration: BraidConfiguration, count: Int, ports: [Int]) async throws -> Int {
        let base = await processed(ports)
        return try await withThrowingTaskGroup(of: Int?.self) { group in
            group.addTask {
                do {
                    try await WorkerPublisher.publish(configuration, requests: count)
                } catch {
                    throw BenchmarkError("publishing failed: \(error)")
                }
                return nil
            }
            group.addTask { try await poll(ports, from: base, count: count) }
            var rate: Int?
            for try await result in group where result != nil { rate = result }
            guard let rate else { throw BenchmarkError("the workers' rate was not measured") }
            return rate
        }
    }

    /// Polls every 20 ms until the workers have processed `count` more than `base`.
    private func poll(_ ports: [Int], from base: Int, count: Int) async throws -> Int {
        var first: (at: ContinuousClock.Instant, count: Int)?
        var seen = base
        let deadline = ContinuousClock.now + .seconds(600)
        while ContinuousClock.now < deadline {
            seen = await processed(ports)
            let now = ContinuousClock.now
            if first == nil, seen > base { first = (now, seen - base) }
            if seen >= base + count, let first {
                guard now > first.at else {
                    throw BenchmarkError("all \(count) requests were processed before the first poll saw any; nothing to time")
                }
                return Format.pythonRound(Double(count - first.count) / Format.seconds(now - first.at))
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw BenchmarkError("the workers processed \(seen - base) of \(count) within 600 s")
    }
}
