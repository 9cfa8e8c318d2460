import BraidDevSupport
import BraidHarness
import BraidTestSupport
import Foundation
import Testing

/// A real `braid gateway` told to stop: `/readyz` fails first while pages are still served,
/// then the process stops accepting and exits 0.
@Suite("A stopping gateway drains", .integration)
struct GatewayDrainTests {
    @Test("SIGTERM turns /readyz to 503 draining for gateway.drain_ms while pages are still 200; then the gateway exits 0")
    func readinessFailsFirstThenTheServerStops() async throws {
        let fixture = try await WorkerFixture(documents: 100, users: 2)
        // Long enough that a loaded machine (a /readyz probe can take seconds beside CI's build)
        // still sees the drain begin and pages served within it.
        let drain = 10_000
        let gateway = try await fixture.startGateway("drain-gateway", environment: ["BRAID_GATEWAY_DRAIN_MS": "\(drain)"])
        // Ready once it has claimed the demo's layout experiment in Redis.
        try await eventually("/readyz answers 200", within: .seconds(30)) {
            try await HTTPProbe.request("\(gateway.baseURL)/readyz").status == 200
        }
        let clock = ContinuousClock()
        let stopped = clock.now
        gateway.process.signal(SIGTERM)
        // The signal is handled asynchronously: /readyz turns within moments.
        try await eventually("/readyz answers 503", within: .milliseconds(drain / 2)) {
            try await HTTPProbe.request("\(gateway.baseURL)/readyz").status == 503
        }
        let draining = try await HTTPProbe.request("\(gateway.baseURL)/readyz")
        #expect(draining.status == 503 && (draining.json?["checks"] as? [String: String]) == ["shutdown": "draining"], "\(draining.text)")
        // Still serving while the balancer takes notice: pages on new connections too.
        repeat {
            let page = try await HTTPProbe.request("\(gateway.baseURL)/v1/search?q=curry")
            #expect(page.status == 200, "a page during the drain: \(page.status) \(page.text)")
            try await Task.sleep(for: .milliseconds(100))
        } while clock.now - stopped < .milliseconds(drain - 3_000)
        let status = await gateway.process.waitForExit(timeout: .seconds(30))
        #expect(status == 0, "exit status \(String(describing: status))")
        #expect(clock.now - stopped >= .milliseconds(drain), "exited \(clock.now - stopped) after SIGTERM, before the drain ended")
        #expect(!Ports.accepts(gateway.port ?? 0), "the port still accepts connections after the exit")
    }

    @Test("Without gateway.drain_ms a stopping gateway does not drain: it stops at once and exits 0")
    func noDrainByDefault() async throws {
        let fixture = try await WorkerFixture(documents: 50, users: 2)
        let gateway = try await fixture.startGateway("nodrain-gateway")
        let clock = ContinuousClock()
        let stopped = clock.now
        gateway.process.signal(SIGTERM)
        let status = await gateway.process.waitForExit(timeout: .seconds(30))
        #expect(status == 0)
        // The drain logs when it waits; a loaded machine can take seconds to stop anyway.
        #expect(!(try fixture.log(of: "nodrain-gateway")).contains("draining:"), "a drain without gateway.drain_ms")
        #expect(clock.now - stopped < .seconds(10), "took \(clock.now - stopped)")
    }
}
