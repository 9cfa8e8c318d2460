import NIOCore

/// Opens set-up connections to any node with the client's settings: its TLS context
/// (built once, when the client is made), its credentials and its transport.
struct RedisNodeConnector: Sendable {
    let configuration: RedisConfiguration
    let group: any EventLoopGroup
    let transport: RedisTransport
    /// The TLS context, nil for plaintext, or why the TLS settings cannot be used.
    let tls: Result<RedisTLSContext?, RedisConnectionError>

    init(configuration: RedisConfiguration, group: any EventLoopGroup, transport: RedisTransport) {
        self.configuration = configuration
        self.group = group
        self.transport = transport
        if let settings = configuration.tls {
            do {
                tls = .success(try RedisTLSContext(settings))
            } catch {
                tls = .failure(error)
            }
        } else {
            tls = .success(nil)
        }
    }

    /// Throws only ``RedisConnectionError``.
    func connect(to endpoint: RedisEndpoint, pushes: (@Sendable (RESPValue) -> Void)? = nil) async throws -> RedisConnection {
        try await RedisConnection.connect(
            to: endpoint, configuration: configuration, tls: tls.get(), group: group, transport: transport, pushes: pushes)
    }
}
