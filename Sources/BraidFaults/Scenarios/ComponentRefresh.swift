import BraidContracts
import BraidHarness
import BraidDevSupport
import Foundation

/// `component-refresh`: a gateway and a worker; one feed component with a TTL of ``ttl``, read
/// 4 times a second for ``duration`` once it is first stored. Passes when no read after the first
/// store is served from a live read (each would be one because the stored content expired), the
/// gateway asked for refreshes as often as the TTLs that passed (one fewer at least: the first
/// store is a miss's), and at most once per refresh window (twice `gateway.refresh_ahead_ms`),
/// so the key is recomputed no more often than that.
///
/// `ComponentRefreshAheadTests` checks the same at an 8 s TTL over 40 s in `make test`.
public struct ComponentRefresh: FaultScenario {
    public let name = "component-refresh"
    public var ttl = 60
    public var duration: Duration = .seconds(300)
    public var refreshAheadMs = 5_000
    public var readInterval: Duration = .milliseconds(250)

    public init() {}

    public func run(on stack: FaultStack) async throws -> FaultResult {
        try await ScenarioWorld.with(stack, scenario: name) { world in
            let fixture = try await world.fixture()
            let file = world.file("refresh.yaml")
            try """
                gateway:
                  refresh_ahead_ms: \(refreshAheadMs)
                feeds:
                  refresh:
                    components:
                      picks: {type: carousel, title: Picks, style: carousel, orthogonal_scroll: true, auto_scroll_interval_ms: 5000,
                        width: 360, height: 200, page_size: 5, scope: segment, ttl_seconds: \(ttl)}
                    variants:
                      - {name: default, weight: 100, prefetch: 1, components: [picks]}

                """.write(to: file, atomically: true, encoding: .utf8)
            _ = try await fixture.startWorker("refresh-worker", arguments: ["--config", file.path])
            try await fixture.waitUntilAssigned("refresh-worker")
            let gateway = try await fixture.startGateway("refresh-gateway", arguments: ["--config", file.path])
            let url = "\(gateway.baseURL)/v1/feeds/refresh/components/picks?user=u00001"
            func source() async throws -> String {
                let page = try await HTTPProbe.request(url)
                guard page.status == 200, let source = page.json?["source"] as? String else {
                    throw HarnessError.failed("the component answered \(page.status): \(page.text.prefix(200))")
                }
                return source
            }
            // The first read misses and asks; the worker stores it.
            let stored = ContinuousClock.now + .seconds(60)
            while try await source() != "cached" {
                guard ContinuousClock.now < stored else { throw HarnessError.failed("the component was not stored within 60 s") }
                try await Task.sleep(for: .milliseconds(200))
            }
            let end = ContinuousClock.now + duration
            var reads = 0
            var live = 0
            while ContinuousClock.now < end {
                if try await source() != "cached" { live += 1 }
                reads += 1
                try await Task.sleep(for: readInterval)
            }
            let metrics = try await HTTPProbe.request("\(gateway.baseURL)/metrics").text
            let refreshes = Int(Self.counter(metrics, MetricName.gatewayComponentRequests.rawValue, label: "refresh_ahead"))
            let seconds = Int(duration.components.seconds)
            let windows = seconds * 1000 / (2 * refreshAheadMs)
            var result = FaultResult()
            result.figure("ttl_seconds", ttl)
            result.figure("reads", reads)
            result.figure("served_live_after_first_store", live)
            result.figure("refreshes_asked", refreshes)
            result.figure("ttls", seconds / ttl)
            result.figure("refresh_windows", windows)
            let problems = [
                live > 0 ? "\(live) reads served live after the first store" : nil,
                refreshes < seconds / ttl - 1 ? "fewer refreshes (\(refreshes)) than TTLs passed" : nil,
                refreshes > windows ? "more refreshes (\(refreshes)) than refresh windows (\(windows))" : nil,
            ].compactMap { $0 }
            result.verdict(problems.isEmpty, problems.joined(separator: "; "))
            return result
        }
    }

    /// The sum of the samples of `name` whose labels contain `label`.
    static func counter(_ metrics: String, _ name: String, label: String) -> Double {
        metrics.split(separator: "\n").filter { $0.hasPrefix(name) && $0.contains(label) }
            .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }.reduce(0, +)
    }
}
