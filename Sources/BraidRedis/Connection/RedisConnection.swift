import NIOCore
import NIOSSL
import Synchronization

/// One TCP (or TLS) connection to a Redis node on which concurrent commands pipeline.
///
/// A command that times out leaves the connection unusable (a late reply would be taken as
/// the answer to the next command), so a timeout closes it; the pool reconnects.
final class RedisConnection: Sendable {
    let channel: any Channel
    let endpoint: RedisEndpoint
    private let timedOut = Atomic<Bool>(false)

    private init(channel: any Channel, endpoint: RedisEndpoint) {
        self.channel = channel
        self.endpoint = endpoint
    }

    var isActive: Bool { channel.isActive }

    /// Connects, sets up TLS when `tls` is given, authenticates, selects the database and
    /// makes sure a Redis server answers (a PING when nothing else was sent). `pushes`
    /// receives Pub/Sub messages once the connection subscribes (see ``RedisChannelHandler``).
    ///
    /// Throws only ``RedisConnectionError``; TLS mix-ups come as ``RedisConnectionError/Kind/tls``
    /// with an explanation. (Not declared as a typed throw: Swift 6.3's optimiser crashes
    /// splitting async functions with typed throws in release builds.)
    static func connect(
        to endpoint: RedisEndpoint, configuration: RedisConfiguration, tls: RedisTLSContext?, group: any EventLoopGroup,
        transport: RedisTransport, pushes: (@Sendable (RESPValue) -> Void)? = nil
    ) async throws -> RedisConnection {
        let observations = ConnectionObservations()
        let channel: any Channel
        do {
            channel = try await transport.open(endpoint, configuration.connectTimeout, group) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHandler(FirstBytesRecorder(observations: observations))
                    if let tls { try pipeline.addHandler(tls.makeHandler(host: endpoint.host)) }
                    try pipeline.addHandler(RedisChannelHandler(observations: observations, pushes: pushes))
                }
            }
        } catch let error as RedisConnectionError {
            throw error
        } catch {
            throw RedisConnectionError(.connectFailed, "cannot connect to \(endpoint): \(error)")
        }
        let connection = RedisConnection(channel: channel, endpoint: endpoint)
        var step = "PING"
        do {
            var sentSomething = false
            if let password = configuration.password {
                step = "AUTH"
                let auth: [RESPArgument] =
                    configuration.username.map { ["AUTH", .string($0), .string(password)] } ?? ["AUTH", .string(password)]
                try await connection.expectOK(auth, timeout: configuration.commandTimeout)
                sentSomething = true
            }
            if configuration.database != 0 {
                step = "SELECT"
                try await connection.expectOK(["SELECT", .integer(Int64(configuration.database))], timeout: configuration.commandTimeout)
                sentSomething = true
            }
            if !sentSomething {
                step = "PING"
                try await connection.expectOK(["PING"], timeout: configuration.commandTimeout)
            }
        } catch let error as RedisServerError {
            connection.close()
            throw RedisConnectionError(.connectFailed, "Redis at \(endpoint) refused the connection set-up (\(step)): \(error)")
        } catch let error as RedisConnectionError where error.kind == .timeout {
            connection.close()
            let observed = observations.snapshot
            if observed.firstBytes.isEmpty, observed.errors.isEmpty,
                let explained = TLSFailureExplanation.explain(
                    .silence(configuration.commandTimeout),
                    .init(endpoint: endpoint, tls: tls?.settings, verifiedName: endpoint.host, trustedCAs: []))
            {
                throw explained
            }
            throw RedisConnectionError(.connectFailed, "\(endpoint) did not answer \(step) within \(configuration.commandTimeout)")
        } catch {
            connection.close()
            try? await channel.closeFuture.get()
            if let explained = await explain(observations.snapshot, endpoint: endpoint, tls: tls, group: group, configuration: configuration) {
                throw explained
            }
            throw RedisConnectionError(.connectFailed, "setting up the connection to \(endpoint) failed at \(step): \(describe(error))")
        }
        return connection
    }

    /// Why the set-up failed, when it is a TLS problem or a protocol mix-up.
    private static func explain(
        _ observed: ConnectionObservations.Snapshot, endpoint: RedisEndpoint, tls: RedisTLSContext?, group: any EventLoopGroup,
        configuration: RedisConfiguration
    ) async -> RedisConnectionError? {
        let context = TLSFailureExplanation.Context(
            endpoint: endpoint, tls: tls?.settings, verifiedName: tls?.verifiedName(host: endpoint.host) ?? endpoint.host,
            trustedCAs: tls?.trustedCAs ?? [])
        let errors = observed.errors.joined(separator: "; ")
        let symptom: TLSFailureExplanation.Symptom
        if observed.nameMismatch, let tls {
            symptom = .nameMismatch(
                certificate: await CertificateProbe.serverCertificate(endpoint, tls: tls, group: group, timeout: configuration.connectTimeout))
        } else if errors.contains("CERTIFICATE_VERIFY_FAILED"), let tls {
            symptom = .certificateNotTrusted(
                certificate: await CertificateProbe.serverCertificate(endpoint, tls: tls, group: group, timeout: configuration.connectTimeout))
        } else if let reason = TLSFailureExplanation.alertReason(in: errors) {
            symptom = .alert(reason)
        } else if !observed.firstBytes.isEmpty {
            symptom = .unexpectedBytes(observed.firstBytes)
        } else {
            symptom = .closedWithoutData
        }
        return TLSFailureExplanation.explain(symptom, context)
    }

    /// Sends one command and awaits its reply. Server error replies come back as values
    /// (`.error`); only connection trouble throws, as ``RedisConnectionError``.
    func send(_ arguments: [RESPArgument], timeout: Duration) async throws -> RESPValue {
        let promise = channel.eventLoop.makePromise(of: RESPValue.self)
        arm(promise, timeout: timeout)
        channel.writeAndFlush(RedisRequest(arguments: arguments, promise: promise)).whenFailure { error in
            promise.fail(error)
        }
        return try await Self.reply(promise)
    }

    /// ASKING then the command, written back to back so that no other command on this
    /// pipelined connection can come between them (ASKING applies to the next command only).
    /// Returns the command's reply; an error reply to ASKING itself is returned instead.
    func sendAsking(_ arguments: [RESPArgument], timeout: Duration) async throws -> RESPValue {
        let asking = channel.eventLoop.makePromise(of: RESPValue.self)
        let promise = channel.eventLoop.makePromise(of: RESPValue.self)
        arm(promise, timeout: timeout)
        let channel = self.channel
        channel.eventLoop.execute {
            channel.write(RedisRequest(arguments: ["ASKING"], promise: asking)).whenFailure { asking.fail($0) }
            channel.writeAndFlush(RedisRequest(arguments: arguments, promise: promise)).whenFailure { promise.fail($0) }
        }
        let askingReply = try await Self.reply(asking)
        if case .error = askingReply { return askingReply }
        return try await Self.reply(promise)
    }

    /// Fails `promise` and closes the connection when no reply arrives within `timeout`.
    private func arm(_ promise: EventLoopPromise<RESPValue>, timeout: Duration) {
        let channel = self.channel
        let deadline = channel.eventLoop.scheduleTask(in: .nanoseconds(timeout.nanoseconds)) {
            self.timedOut.store(true, ordering: .relaxed)
            promise.fail(RedisConnectionError(.timeout, "no reply from \(self.endpoint) within \(timeout)"))
            channel.close(promise: nil)
        }
        promise.futureResult.whenComplete { _ in deadline.cancel() }
    }

    private static func reply(_ promise: EventLoopPromise<RESPValue>) async throws -> RESPValue {
        do {
            return try await promise.futureResult.get()
        } catch let error as RedisConnectionError {
            throw error
        } catch {
            throw RedisConnectionError(.closed, "connection error: \(describe(error))")
        }
    }

    private static func describe(_ error: any Error) -> String {
        String(describing: error)
    }

    private func expectOK(_ arguments: [RESPArgument], timeout: Duration) async throws {
        let reply = try await send(arguments, timeout: timeout)
        if case .error(let message) = reply { throw RedisServerError(message: message) }
    }

    /// Whether a command went unanswered for its timeout (and so closed the connection):
    /// the node may be unreachable rather than slow, as when packets to it vanish.
    var closedByTimeout: Bool { timedOut.load(ordering: .relaxed) }

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
