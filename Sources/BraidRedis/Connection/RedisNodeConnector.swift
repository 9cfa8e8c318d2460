import NIOCore

/// Opens set-up connections to any node with the client's settings: its TLS context
/// (built once, when the client is made) and its credentials.
struct RedisNodeConnector: Sendable {
    let configuration: RedisConfiguration
    let group: any EventLoopGroup
    /// The TLS context, nil for plaintext, or why the TLS settings cannot be used.
    let tls: Result<RedisTLSContext?, RedisConnectionError>

    init(configuration: RedisConfiguration, group: any EventLoopGroup) {
        self.configuration = configuration
        self.group = group
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
    func connect(to endpoint: RedisEndpoint) async throws -> RedisConnection {
        try await RedisConnection.connect(to: endpoint, configuration: configuration, tls: tls.get(), group: group)
    }
}
