import NIOCore
import NIOPosix

/// One TCP connection to Redis on which concurrent commands pipeline.
///
/// A command that times out leaves the connection unusable (a late reply would be taken as
/// the answer to the next command), so a timeout closes it; the pool reconnects.
final class RedisConnection: Sendable {
    let channel: any Channel

    private init(channel: any Channel) {
        self.channel = channel
    }

    var isActive: Bool { channel.isActive }

    /// Throws only ``RedisConnectionError``. (Not declared as a typed throw: Swift 6.3's
    /// optimiser crashes splitting async functions with typed throws in release builds.)
    static func connect(
        to endpoint: RedisConfiguration, group: any EventLoopGroup
    ) async throws -> RedisConnection {
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: group)
                .connectTimeout(.milliseconds(Int64(endpoint.connectTimeout.milliseconds)))
                .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(RedisChannelHandler())
                    }
                }
                .connect(host: endpoint.host, port: endpoint.port)
                .get()
        } catch {
            throw RedisConnectionError(.connectFailed, "cannot connect to \(endpoint.host):\(endpoint.port): \(error)")
        }
        let connection = RedisConnection(channel: channel)
        do {
            if let password = endpoint.password {
                let auth: [RESPArgument] = endpoint.username.map { ["AUTH", .string($0), .string(password)] } ?? ["AUTH", .string(password)]
                try await connection.expectOK(auth, timeout: endpoint.commandTimeout)
            }
            if endpoint.database != 0 {
                try await connection.expectOK(["SELECT", .integer(Int64(endpoint.database))], timeout: endpoint.commandTimeout)
            }
        } catch {
            connection.close()
            throw RedisConnectionError(.connectFailed, "Redis refused the connection set-up: \(error)")
        }
        return connection
    }

    /// Sends one command and awaits its reply. Server error replies come back as values
    /// (`.error`); only connection trouble throws, as ``RedisConnectionError``.
    func send(_ arguments: [RESPArgument], timeout: Duration) async throws -> RESPValue {
        let eventLoop = channel.eventLoop
        let promise = eventLoop.makePromise(of: RESPValue.self)
        let channel = self.channel
        let deadline = eventLoop.scheduleTask(in: .nanoseconds(timeout.nanoseconds)) {
            promise.fail(RedisConnectionError(.timeout, "no reply within \(timeout)"))
            channel.close(promise: nil)
        }
        promise.futureResult.whenComplete { _ in deadline.cancel() }
        channel.writeAndFlush(RedisRequest(arguments: arguments, promise: promise)).whenFailure { error in
            promise.fail(RedisConnectionError(.closed, "cannot write to Redis: \(error)"))
        }
        do {
            return try await promise.futureResult.get()
        } catch let error as RedisConnectionError {
            throw error
        } catch {
            throw RedisConnectionError(.closed, "\(error)")
        }
    }

    private func expectOK(_ arguments: [RESPArgument], timeout: Duration) async throws -> Void {
        let reply = try await send(arguments, timeout: timeout)
        if case .error(let message) = reply { throw RedisServerError(message: message) }
    }

    /// Completes when the connection has closed, for whatever reason.
    func closed() async {
        try? await channel.closeFuture.get()
    }

    func close() {
        channel.close(promise: nil)
    }
}

extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    var milliseconds: Int64 { nanoseconds / 1_000_000 }
}
