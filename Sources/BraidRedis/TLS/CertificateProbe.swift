import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS

/// Fetches a server's certificate with an unverified handshake, only to explain why the
/// verified one failed (whose CA issued it, for which names, until when). Nothing is sent
/// over this connection; it closes right after the handshake.
enum CertificateProbe {
    static func serverCertificate(
        _ endpoint: RedisEndpoint, tls: RedisTLSContext, group: any EventLoopGroup, timeout: Duration
    ) async -> CertificateSummary? {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .none
        guard let context = try? NIOSSLContext(configuration: configuration) else { return nil }
        let name = tls.verifiedName(host: endpoint.host)
        let sni = RedisTLSContext.isIPAddress(name) ? nil : name
        let promise = group.next().makePromise(of: CertificateSummary?.self)
        do {
            let channel = try await ClientBootstrap(group: group)
                .connectTimeout(.milliseconds(Int64(timeout.milliseconds)))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let handler = try NIOSSLClientHandler(context: context, serverHostname: sni)
                        try channel.pipeline.syncOperations.addHandler(handler)
                        try channel.pipeline.syncOperations.addHandler(HandshakeWatcher(handler: handler, promise: promise))
                    }
                }
                .connect(host: endpoint.host, port: endpoint.port)
                .get()
            let deadline = channel.eventLoop.scheduleTask(in: .nanoseconds(timeout.nanoseconds)) { promise.succeed(nil) }
            defer {
                deadline.cancel()
                channel.close(promise: nil)
            }
            return try await promise.futureResult.get()
        } catch {
            promise.succeed(nil)
            return nil
        }
    }

    /// Completes the promise with the peer's certificate once the handshake is done.
    private final class HandshakeWatcher: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        private let handler: NIOSSLClientHandler
        private let promise: EventLoopPromise<CertificateSummary?>

        init(handler: NIOSSLClientHandler, promise: EventLoopPromise<CertificateSummary?>) {
            self.handler = handler
            self.promise = promise
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case TLSUserEvent.handshakeCompleted = event {
                promise.succeed(handler.peerCertificate.map(CertificateSummary.init))
            }
            context.fireUserInboundEventTriggered(event)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            promise.succeed(nil)
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            promise.succeed(nil)
            context.fireChannelInactive()
        }
    }
}
