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
final class RedisChannelHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = RedisRequest
    typealias OutboundOut = ByteBuffer

    private let parser = HiredisReplyParser()
    private var pending = Deque<EventLoopPromise<RESPValue>>()

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let request = unwrapOutboundIn(data)
        var buffer = context.channel.allocator.buffer(capacity: 64)
        RESPCommandEncoder.encode(request.arguments, into: &buffer)
        pending.append(request.promise)
        context.write(wrapOutboundOut(buffer), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        do {
            try parser.feed(unwrapInboundIn(data))
            while let reply = try parser.next() {
                guard let promise = pending.popFirst() else {
                    throw RedisConnectionError(.protocolError, "a reply arrived with no command waiting for it")
                }
                promise.succeed(reply)
            }
        } catch {
            failAll(error)
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        failAll(RedisConnectionError(.closed, "the connection to Redis closed"))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        failAll(RedisConnectionError(.closed, "connection error: \(error)"))
        context.close(promise: nil)
    }

    private func failAll(_ error: any Error) {
        while let promise = pending.popFirst() { promise.fail(error) }
    }
}
