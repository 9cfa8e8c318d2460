import BraidContracts
@testable import BraidGateway
import BraidHarness
import BraidTestSupport
import Foundation
import Testing

@Suite("early refresh")
struct EarlyRefreshTests {
    @Test("A read is due when −δ·ln(u) reaches the time to expiry; an expired value always is")
    func dueByTheDraw() {
        let refresh = EarlyRefresh(delta: 2)
        // −2·ln(e^−2) = 4: a draw of e^−2 makes a read 4 s before expiry due, not one 4.1 s before.
        #expect(refresh.isDue(timeToExpiry: 4, unit: exp(-2) - 1e-12))
        #expect(!refresh.isDue(timeToExpiry: 4.1, unit: exp(-2)))
        #expect(!refresh.isDue(timeToExpiry: 0.001, unit: 1))
        #expect(refresh.isDue(timeToExpiry: 0, unit: 1))
        #expect(refresh.window == .seconds(4))
    }

    @Test("Over many reads the chance of a refresh is e^(−x/δ)")
    func chanceFollowsTheExponential() {
        let refresh = EarlyRefresh(delta: 5)
        var generator = SeededGenerator(seed: 7)
        for x in [1.0, 5, 10] {
            let draws = 20_000
            let due = (0..<draws).filter { _ in refresh.isDue(timeToExpiry: x, unit: Double.random(in: .leastNonzeroMagnitude...1, using: &generator)) }.count
            #expect(abs(Double(due) / Double(draws) - exp(-x / 5)) < 0.02, "x=\(x): \(due) of \(draws)")
        }
    }
}

/// A real `braid gateway` and `braid worker`: a component read steadily is stored again before
/// its TTL runs out, so no read falls back to a live one.
@Suite("Refresh ahead of expiry", .serialized, .integration)
struct ComponentRefreshAheadTests {
    static let ttl = 8

    @Test("A component read 4 times a second over five TTLs is never served live after its first store; each refresh is asked once per window (4 s)")
    func neverServedLiveBecauseItExpired() async throws {
        let fixture = try await WorkerFixture(documents: 300, users: 5)
        let file = fixture.logFolder.appendingPathComponent("\(fixture.keyPrefix)-refresh.yaml")
        try """
            gateway:
              refresh_ahead_ms: 2000
            feeds:
              refresh:
                components:
                  picks: {type: carousel, title: Picks, style: carousel, orthogonal_scroll: true, auto_scroll_interval_ms: 5000,
                    width: 360, height: 200, page_size: 5, scope: segment, ttl_seconds: \(Self.ttl)}
                variants:
                  - {name: default, weight: 100, prefetch: 1, components: [picks]}

            """.write(to: file, atomically: true, encoding: .utf8)
        let worker = try await fixture.startWorker("refresh-worker", arguments: ["--config", file.path])
        defer { worker.signal(SIGTERM) }
        try await fixture.waitUntilAssigned("refresh-worker")
        let gateway = try await fixture.startGateway("refresh-gateway", arguments: ["--config", file.path])
        defer { gateway.process.signal(SIGTERM) }
        let url = "\(gateway.baseURL)/v1/feeds/refresh/components/picks?user=u00001"
        func source() async throws -> String {
            let page = try await HTTPProbe.request(url)
            try #require(page.status == 200, "\(page.status): \(page.text)")
            return try #require(page.json?["source"] as? String)
        }
        // The first read misses and asks; the worker stores it.
        try await eventually("the component stored", within: .seconds(60)) { try await source() == "cached" }
        let clock = ContinuousClock()
        let end = clock.now + .seconds(5 * Self.ttl)
        var reads = 0
        var live = 0
        while clock.now < end {
            if try await source() != "cached" { live += 1 }
            reads += 1
            try await Task.sleep(for: .milliseconds(250))
        }
        #expect(live == 0, "\(live) of \(reads) reads served live")
        let metrics = try await HTTPProbe.request("\(gateway.baseURL)/metrics").text
        let refreshes = metrics.split(separator: "\n").filter {
            $0.hasPrefix(MetricName.gatewayComponentRequests.rawValue) && $0.contains("refresh_ahead")
        }.compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }.reduce(0, +)
        // About one refresh a TTL; never more than one per window (4 s) of the 40 s.
        #expect(refreshes >= 3 && refreshes <= 20, "\(refreshes) refreshes asked in \(5 * Self.ttl) s")
    }
}
