import Foundation

/// A redis-server on loopback, plain or TLS-only, without persistence.
public final class RedisServer: Sendable {
    /// TLS-only (`--port 0 --tls-port`), with certificates of a ``TLSMaterial`` folder.
    public struct TLS: Sendable {
        public var material: TLSMaterial
        /// The server certificate's base name: `server` (issued by the test CA for localhost
        /// and 127.0.0.1) or `selfsigned`.
        public var certificate: String
        /// redis's `tls-auth-clients`: `yes` (mutual TLS required), `optional` or `no`.
        public var authClients: String

        public init(material: TLSMaterial, certificate: String = "server", authClients: String = "optional") {
            self.material = material
            self.certificate = certificate
            self.authClients = authClients
        }
    }

    public let port: Int
    public let tls: TLS?
    public let placement: Placement
    public let process: ChildProcess
    private let run: RunDirectory

    /// `redis://<address>:<port>`, or `rediss://` for a TLS server.
    public var url: String { "\(tls == nil ? "redis" : "rediss")://\(placement.address):\(port)" }

    private init(port: Int, tls: TLS?, placement: Placement, process: ChildProcess, run: RunDirectory) {
        self.port = port
        self.tls = tls
        self.placement = placement
        self.process = process
        self.run = run
    }

    /// Starts a server on `port` (a free one when nil) and waits until it accepts commands.
    /// `arguments` are added to redis-server's (e.g. `["--requirepass", "…"]`).
    public static func start(
        in run: RunDirectory, port: Int? = nil, tls: TLS? = nil, arguments: [String] = [], on placement: Placement = .loopback
    ) async throws(HarnessError) -> RedisServer {
        let port = try Ports.given(port)
        let name = "redis\(tls == nil ? "" : "-tls")-\(port)"
        var listen = ["--port", "\(port)"]
        if let tls {
            listen = [
                "--port", "0", "--tls-port", "\(port)",
                "--tls-cert-file", tls.material.file("\(tls.certificate).crt"),
                "--tls-key-file", tls.material.file("\(tls.certificate).key"),
                "--tls-ca-cert-file", tls.material.file("ca.crt"), "--tls-auth-clients", tls.authClients,
            ]
        }
        let server = try Toolchain.find("redis-server")
        let logOffset = Readiness.logSize(run.file("\(name).log"))
        let process = try await run.start(
            server,
            listen + ["--bind", placement.address] + placement.protectedModeOff
                + ["--save", "", "--appendonly", "no", "--dir", run.url.path, "--daemonize", "no"]
                // Braid's eviction policy (Deploy/redis/braid-redis.conf); `arguments` may say otherwise.
                + ["--maxmemory-policy", "volatile-lfu"] + arguments,
            log: "\(name).log", namespace: placement.namespace)
        try await Readiness.wait(for: "redis-server on port \(port)", process: process, timeout: .seconds(20)) {
            Readiness.log(process.log, contains: "Ready to accept connections", after: logOffset)
        }
        return RedisServer(port: port, tls: tls, placement: placement, process: process, run: run)
    }

    /// Stops the server (SIGTERM) and waits for it to exit.
    public func stop() async {
        await run.stop(process)
    }
}
