import DequeModule
import NIOCore

/// A command on its way to Redis with the promise its reply completes.
struct RedisRequest {
    var arguments: [RESPArgument]
    var promise: EventLoopPromise<RESPValue>
}

/// Pipelines commands on one connection: each write encodes a command and queues its
/// promise; replies arrive in command order, so each completes the oldest promise.
/// Lives on its channel's event loop only.
///
/// Connection failures fail the waiting promises with the channel's own error (a NIOSSL
/// handshake error, an I/O error, ``RedisConnectionError``): ``RedisConnection`` turns them
/// into ``RedisConnectionError`` and, while connecting, explains TLS mix-ups from them.
final class RedisChannelHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = RedisRequest
    typealias OutboundOut = ByteBuffer

    private let parser = HiredisReplyParser()
    private var pending = Deque<EventLoopPromise<RESPValue>>()
    private let observations: ConnectionObservations
    /// Receives Pub/Sub messages on a subscribed connection; nil on command connections,
    /// where every reply answers a command.
    private let pushes: (@Sendable (RESPValue) -> Void)?
    /// A flush is queued on the event loop: flushes asked for until it runs share it.
    private var flushQueued = false

    init(observations: ConnectionObservations, pushes: (@Sendable (RESPValue) -> Void)? = nil) {
        self.observations = observations
        self.pushes = pushes
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let request = unwrapOutboundIn(data)
        var buffer = context.channel.allocator.buffer(capacity: 64)
        RESPCommandEncoder.encode(request.arguments, into: &buffer)
        pending.append(request.promise)
        context.write(wrapOutboundOut(buffer), promise: promise)
    }

    /// Commands from many tasks arrive as separate event-loop tasks, each asking for a flush:
    /// one flush after those already queued sends them in one write instead of a system call
    /// each (with many tasks on few connections, writes would otherwise take much of the time).
    func flush(context: ChannelHandlerContext) {
        guard !flushQueued else { return }
        flushQueued = true
        context.eventLoop.assumeIsolated().execute {
            self.flushQueued = false
            context.flush()
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        do {
            try parser.feed(unwrapInboundIn(data))
            while let reply = try parser.next() {
                if let pushes, Self.isPubSubMessage(reply) {
                    pushes(reply)
                    continue
                }
                guard let promise = pending.popFirst() else {
                    throw RedisConnectionError(.protocolError, "a reply arrived with no command waiting for it")
                }
                promise.succeed(reply)
            }
        } catch {
            observations.record(error: error)
            failAll(error)
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        failAll(RedisConnectionError(.closed, "the connection to Redis closed"))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        observations.record(error: error)
        failAll(error)
        context.close(promise: nil)
    }

    private func failAll(_ error: any Error) {
        while let promise = pending.popFirst() { promise.fail(error) }
    }

    /// A RESP2 Pub/Sub delivery (`message`, channel, payload), which answers no command: on
    /// a subscribed connection, replies to SUBSCRIBE and PING are arrays too, but start with
    /// `subscribe` and `pong`.
    static func isPubSubMessage(_ reply: RESPValue) -> Bool {
        guard case .array(let elements?) = reply, elements.count == 3, case .bulkString(let kind?) = elements[0] else { return false }
        return kind.readableBytesView.elementsEqual("message".utf8)
    }
}

/// The first bytes a connection received, so a failed set-up can tell a TLS port from a
/// plaintext one. Sits first in the pipeline and passes everything on.
final class FirstBytesRecorder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let observations: ConnectionObservations
    private var recorded = false

    init(observations: ConnectionObservations) {
        self.observations = observations
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !recorded {
            recorded = true
            let buffer = unwrapInboundIn(data)
            observations.record(firstBytes: Array(buffer.readableBytesView.prefix(64)))
        }
        context.fireChannelRead(data)
    }
}
