import NIOCore
import NIOPosix

/// How a connection to a node gets its channel: a TCP connection by default.
///
/// Everything above the channel — the pipeline, AUTH/SELECT/PING, pipelining, timeouts, the
/// pools and cluster routing — is the same whatever opens it; a test hands back in-memory
/// channels whose traffic it scripts, to run the real routing against nodes that answer
/// MOVED, ASK or TRYAGAIN on cue.
struct RedisTransport: Sendable {
    /// Opens a channel to `endpoint` whose pipeline `initialize` sets up; throws when the
    /// node cannot be reached.
    typealias Open = @Sendable (
        _ endpoint: RedisEndpoint, _ connectTimeout: Duration, _ group: any EventLoopGroup,
        _ initialize: @escaping @Sendable (any Channel) -> EventLoopFuture<Void>
    ) async throws -> any Channel

    let open: Open

    /// TCP with `TCP_NODELAY`, giving up after the connect timeout.
    static let tcp = RedisTransport { endpoint, connectTimeout, group, initialize in
        try await ClientBootstrap(group: group)
            .connectTimeout(.milliseconds(connectTimeout.milliseconds))
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer(initialize)
            .connect(host: endpoint.host, port: endpoint.port)
            .get()
    }
}
