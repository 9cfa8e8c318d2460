import Foundation
import Synchronization

/// `count` gateways on loopback behind a ``Balancer``, each stopping with a drain the balancer
/// notices (`gateway.drain_ms`), and restarted one at a time on the port it had.
public final class GatewayFleet: Sendable {
    public let balancer: Balancer
    public let ports: [Int]
    private let gateways: Mutex<[BraidService]>
    private let run: RunDirectory
    private let names: [String]
    private let environment: [String: String]
    private let arguments: [String]
    private let binary: String

    /// The balancer's address: where clients go.
    public var baseURL: String { balancer.baseURL }
    public var members: [BraidService] { gateways.withLock { $0 } }

    private init(
        balancer: Balancer, gateways: [BraidService], run: RunDirectory, names: [String], environment: [String: String], arguments: [String],
        binary: String
    ) {
        self.balancer = balancer
        self.ports = gateways.map { $0.port ?? 0 }
        self.gateways = Mutex(gateways)
        self.run = run
        self.names = names
        self.environment = environment
        self.arguments = arguments
        self.binary = binary
    }

    /// Starts `count` gateways named `<name>-1`… on free ports with `environment` (which may
    /// set `BRAID_GATEWAY_DRAIN_MS` to another drain) and `arguments`, then the balancer on
    /// `port` (a free one when nil).
    public static func start(
        in run: RunDirectory, count: Int, name: String = "gateway", port: Int? = nil, environment: [String: String], arguments: [String] = [],
        binary: String = BraidService.binary
    ) async throws(HarnessError) -> GatewayFleet {
        let environment = ["BRAID_GATEWAY_DRAIN_MS": "\(Balancer.gatewayDrainMs)"].merging(environment) { $1 }
        let names = (1...max(1, count)).map { "\(name)-\($0)" }
        var gateways: [BraidService] = []
        for name in names {
            gateways.append(
                try await BraidService.gateway(in: run, name: name, arguments: arguments, environment: environment, binary: binary))
        }
        let balancer = try await Balancer.start(in: run, port: port, gateways: gateways.map { $0.port ?? 0 })
        return GatewayFleet(
            balancer: balancer, gateways: gateways, run: run, names: names, environment: environment, arguments: arguments, binary: binary)
    }

    /// Stops gateway `index` (SIGTERM: it drains) and starts it again on its port, from `binary`
    /// (another version: a rolling upgrade) or the fleet's; returns once the balancer sends it
    /// requests again.
    @discardableResult
    public func restart(_ index: Int, binary: String? = nil) async throws(HarnessError) -> Restart {
        let clock = ContinuousClock()
        let began = clock.now
        let old = gateways.withLock { $0[index] }
        old.process.signal(SIGTERM)
        let status = await old.process.waitForExit(timeout: .seconds(30))
        await run.stop(old.process)
        let exited = clock.now
        let new = try await BraidService.gateway(
            in: run, name: names[index], port: ports[index], arguments: arguments, environment: environment, binary: binary ?? self.binary)
        gateways.withLock { $0[index] = new }
        let started = clock.now
        // The balancer brings it back after `rise` good checks.
        try? await Task.sleep(for: .milliseconds(Balancer.checkIntervalMs * (Balancer.rise + 1)))
        return Restart(status: status, stopping: exited - began, starting: started - exited)
    }

    /// How one restart went.
    public struct Restart: Sendable {
        /// The stopped process's wait status; nil: it did not exit within 30 s, and was killed.
        public var status: Int32?
        /// From SIGTERM to its exit (the drain included).
        public var stopping: Duration
        /// From its exit until the new process answered `/healthz`.
        public var starting: Duration
    }

    /// Stops every gateway at once (each drains), then the balancer.
    public func stop() async {
        await withTaskGroup(of: Void.self) { group in
            for gateway in members { group.addTask { await gateway.stop() } }
        }
        await run.stop(balancer.process)
    }
}
