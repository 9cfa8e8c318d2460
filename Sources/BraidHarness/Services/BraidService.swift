import Foundation

/// A `braid worker` or `braid gateway` process of the local stack.
public final class BraidService: Sendable {
    public enum Kind: String, Sendable {
        case worker, gateway
    }

    public let kind: Kind
    public let name: String
    public let process: ChildProcess
    /// The gateway's HTTP port (nil for a worker).
    public let port: Int?
    /// What ``ExposedServiceSecrets`` added to the environment it was given (empty on loopback):
    /// `BRAID_ADMIN_TOKEN` is the bearer token of its `/metrics`, for instance.
    public let addedSecrets: [String: String]
    public let placement: Placement
    private let run: RunDirectory

    /// `http://<address>:<port>` of a gateway.
    public var baseURL: String { "http://\(placement.address):\(port ?? 0)" }

    private init(
        kind: Kind, name: String, process: ChildProcess, port: Int?, placement: Placement, addedSecrets: [String: String], run: RunDirectory
    ) {
        self.kind = kind
        self.name = name
        self.process = process
        self.port = port
        self.placement = placement
        self.addedSecrets = addedSecrets
        self.run = run
    }

    /// `environment` completed for a service that listens beyond loopback, and what was added.
    private static func completed(_ environment: [String: String], _ kind: Kind, _ arguments: [String]) -> (all: [String: String], added: [String: String]) {
        let all = ExposedServiceSecrets.completing(environment, for: kind, arguments: arguments)
        return (all, all.filter { environment[$0.key] == nil })
    }

    /// The `braid` binary: `BRAID` when set, else the one built next to the running
    /// executable (`braid-local`, `braid-dev`, or the test bundle).
    public static var binary: String {
        if let path = ProcessInfo.processInfo.environment["BRAID"], !path.isEmpty { return path }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("braid").path
    }

    /// Starts `braid gateway` on `port` with `environment` (BRAID_* overrides, completed by
    /// ``ExposedServiceSecrets`` when it listens beyond loopback) and waits until GET /healthz
    /// answers 200. Its log is `<name>.log` in the run folder.
    public static func gateway(
        in run: RunDirectory, name: String = "gateway", port: Int? = nil, arguments: [String] = [],
        environment: [String: String], binary: String = binary, timeout: Duration = .seconds(60), on placement: Placement = .loopback
    ) async throws(HarnessError) -> BraidService {
        let port = try Ports.given(port)
        var listen = ["BRAID_GATEWAY_PORT": "\(port)"]
        if placement != .loopback { listen["BRAID_GATEWAY_HOST"] = placement.address }
        let environment = completed(environment.merging(listen) { $1 }, .gateway, arguments)
        let process = try await run.start(
            binary, ["gateway"] + arguments, environment: environment.all, log: "\(name).log", namespace: placement.namespace)
        let service = BraidService(
            kind: .gateway, name: name, process: process, port: port, placement: placement, addedSecrets: environment.added, run: run)
        try await Readiness.wait(for: "the gateway \(name)", process: process, timeout: timeout, interval: .milliseconds(100)) {
            await HTTPProbe.isOK("\(service.baseURL)/healthz")
        }
        return service
    }

    /// Starts `braid worker` with `environment` (completed as a gateway's is) and, when
    /// `assignedFrom` names its requests topic, waits until the worker owns partitions of it.
    public static func worker(
        in run: RunDirectory, name: String = "worker", arguments: [String] = [], environment: [String: String],
        assignedFrom topic: String? = nil, binary: String = binary, timeout: Duration = .seconds(60), on placement: Placement = .loopback
    ) async throws(HarnessError) -> BraidService {
        let environment = completed(environment, .worker, arguments)
        let process = try await run.start(
            binary, ["worker"] + arguments, environment: environment.all, log: "\(name).log", namespace: placement.namespace)
        let service = BraidService(
            kind: .worker, name: name, process: process, port: nil, placement: placement, addedSecrets: environment.added, run: run)
        if let topic {
            try await service.waitUntilAssigned(topic, timeout: timeout)
        }
        return service
    }

    /// Waits until the worker's log says it was assigned partitions of `topic`.
    public func waitUntilAssigned(_ topic: String, timeout: Duration = .seconds(60)) async throws(HarnessError) {
        try await Readiness.wait(for: "worker \(name)", process: process, timeout: timeout, interval: .milliseconds(200)) {
            guard let log = process.log, let text = try? String(contentsOf: log, encoding: .utf8) else { return false }
            return text.split(separator: "\n").contains { $0.contains("partitions assigned") && $0.contains("\(topic)[") }
        }
    }

    /// SIGTERM (the service drains and commits), SIGKILL after `grace`.
    public func stop(grace: Duration = .seconds(10)) async {
        await run.stop(process, grace: grace)
    }
}
