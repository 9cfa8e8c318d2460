import Hummingbird
import HummingbirdCore
import NIOCore

/// What every HTTP listener of a Braid process allows a connection (`http.*`): an idle
/// timeout (Hummingbird's), a deadline for each request's head and body
/// (``RequestDeadlineHandler``), a body limit and HTTP/1 framing rules (``RequestFraming``),
/// and a cap on open connections, past which the listener stops accepting until one closes
/// (Hummingbird's `MaximumAvailableConnections`).
public struct HTTPLimits: Sendable, Equatable {
    public var idleTimeout: Duration
    public var headerTimeout: Duration
    public var bodyTimeout: Duration
    public var maxConnections: Int
    /// Largest request body any route accepts (a batchGet of 20 names is well under 4 KiB).
    public static let maxBodyBytes = 64 * 1024

    public init(idleTimeout: Duration, headerTimeout: Duration, bodyTimeout: Duration, maxConnections: Int) {
        self.idleTimeout = idleTimeout
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.maxConnections = maxConnections
    }

    /// The HTTP/1.1 server with these timeouts.
    public var server: HTTPServerBuilder {
        let header = TimeAmount(headerTimeout)
        let body = TimeAmount(bodyTimeout)
        return .http1(
            configuration: .init(
                additionalChannelHandlers: [
                    RequestDeadlineHandler(header: header, body: body), RequestFramingInstaller(maxBodyBytes: Self.maxBodyBytes),
                ], idleTimeout: TimeAmount(idleTimeout)))
    }

    /// Hummingbird's configuration for a listener at `host:port` with the connection cap.
    public func configuration(host: String, port: Int) -> ApplicationConfiguration {
        ApplicationConfiguration(
            address: .hostname(host, port: port), serverName: "braid",
            availableConnectionsDelegate: MaximumAvailableConnections(maxConnections))
    }
}
