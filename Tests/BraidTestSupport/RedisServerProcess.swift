import Foundation
import Synchronization

/// A private redis-server for tests that stop, restart or reconfigure Redis, so they never
/// disturb the shared server other tests use. Its pid file lives in the test run folder,
/// where `make test` stops anything left behind.
public final class RedisServerProcess: Sendable {
    public let port: Int
    public let extraArguments: [String]
    public let tls: TLS?
    private let process = Mutex<ChildProcess?>(nil)

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

    public init(port: Int? = nil, extraArguments: [String] = [], tls: TLS? = nil) throws {
        self.port = try port ?? FreePort.find()
        self.extraArguments = extraArguments
        self.tls = tls
    }

    /// Starts the server and waits until it accepts connections.
    public func start() async throws {
        let directory = try TestEnvironment.runDirectory()
        var listen = ["--port", "\(port)"]
        if let tls {
            listen = [
                "--port", "0", "--tls-port", "\(port)", "--tls-cert-file", try TestEnvironment.tlsFile("\(tls.certificate).crt"),
                "--tls-key-file", try TestEnvironment.tlsFile("\(tls.certificate).key"), "--tls-ca-cert-file",
                try TestEnvironment.tlsFile("ca.crt"), "--tls-auth-clients", tls.authClients,
            ]
        }
        let child = try ChildProcess(
            "/usr/bin/redis-server",
            listen + ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", directory.path] + extraArguments,
            log: directory.appendingPathComponent("redis-private-\(port).log"))
        try "\(child.pid)".write(
            to: directory.appendingPathComponent("redis-private-\(port).pid"), atomically: true, encoding: .utf8)
        process.withLock { $0 = child }
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if FreePort.accepts(port: port) { return }
            if child.hasExited { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestEnvironment.MissingServer(variable: "private redis-server on port \(port) (did not start; see its log)")
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
        guard let child = process.withLock({ process in defer { process = nil }; return process }) else { return }
        await child.stop()
    }
}

/// Loopback ports for servers tests start themselves.
public enum FreePort {
    public static func find() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw TestEnvironment.MissingServer(variable: "a free loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts TCP connections on 127.0.0.1:port.
    public static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
