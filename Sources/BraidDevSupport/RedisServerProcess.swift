import BraidHarness
import Foundation
import Synchronization

/// A private redis-server for tests that stop, restart or reconfigure Redis, so they never
/// disturb the shared server other tests use. Started through the harness in the test run
/// folder; stopping and starting it again keeps its port.
public final class RedisServerProcess: Sendable {
    public let port: Int
    public let extraArguments: [String]
    public let tls: TLS?
    private let server = Mutex<RedisServer?>(nil)

    /// A TLS-only server (`--port 0 --tls-port`), with files of ``TestEnvironment/tlsDirectory()``.
    public struct TLS: Sendable {
        /// The server certificate's base name there: `server` (issued by the test CA) or `selfsigned`.
        public var certificate: String
        /// redis's `tls-auth-clients`: `yes` (mutual TLS required), `optional` or `no`.
        public var authClients: String

        public init(certificate: String = "server", authClients: String = "optional") {
            self.certificate = certificate
            self.authClients = authClients
        }
    }

    public var url: String { "\(tls == nil ? "redis" : "rediss")://127.0.0.1:\(port)" }

    /// The running server's process (nil while stopped).
    public var process: ChildProcess? { server.withLock { $0?.process } }

    public init(port: Int? = nil, extraArguments: [String] = [], tls: TLS? = nil) throws {
        self.port = try Ports.given(port)
        self.extraArguments = extraArguments
        self.tls = tls
    }

    /// Starts the server and waits until it accepts connections.
    public func start() async throws {
        let run = try await TestRun.directory()
        var serverTLS: RedisServer.TLS?
        if let tls {
            let material = try await TLSMaterial.make(in: try TestEnvironment.tlsDirectory())
            serverTLS = RedisServer.TLS(material: material, certificate: tls.certificate, authClients: tls.authClients)
        }
        let started = try await RedisServer.start(in: run, port: port, tls: serverTLS, arguments: extraArguments)
        server.withLock { $0 = started }
    }

    /// Runs `body` with a started private server, and stops the server afterwards whether
    /// `body` returns or throws.
    public static func with<T: Sendable>(
        extraArguments: [String] = [], tls: TLS? = nil, _ body: (RedisServerProcess) async throws -> T
    ) async throws -> T {
        let server = try RedisServerProcess(extraArguments: extraArguments, tls: tls)
        do {
            try await server.start()
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    /// Stops the server (SIGTERM) and waits for it to exit.
    public func stop() async {
        guard let running = server.withLock({ server in defer { server = nil }; return server }) else { return }
        await running.stop()
    }
}

/// Loopback ports for servers tests start themselves.
public enum FreePort {
    public static func find() throws -> Int { try Ports.free() }

    /// Whether something accepts TCP connections on 127.0.0.1:port.
    public static func accepts(port: Int) -> Bool { Ports.accepts(port) }
}

/// A failure of a process a test started, in words.
public struct ChildProcessError: Error, CustomStringConvertible {
    public let description: String
    public init(description: String) { self.description = description }
}
