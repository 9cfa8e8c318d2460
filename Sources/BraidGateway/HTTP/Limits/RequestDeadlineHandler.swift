import BraidContracts
import BraidObservability
import Logging
import Metrics
import NIOCore
import NIOHTTPTypes

/// Closes a connection whose request head or body arrives too slowly (``RequestDeadlines``):
/// a slowloris client holds a socket for `header` at most, not for as long as it trickles.
///
/// It sits after the HTTP decoder (it sees heads and ends) and adds a small observer at the
/// front of the pipeline that tells it when raw bytes arrive, since a head still incomplete
/// reaches no handler after the decoder.
final class RequestDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let header: TimeAmount
    let body: TimeAmount
    private var deadlines = RequestDeadlines()
    private var timer: Scheduled<Void>?
    private var context: ChannelHandlerContext?

    init(header: TimeAmount, body: TimeAmount) {
        self.header = header
        self.body = body
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        try? context.pipeline.syncOperations.addHandler(ByteArrivalObserver(owner: self), position: .first)
        if context.channel.isActive { perform(deadlines.opened(), context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        perform(deadlines.opened(), context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: perform(deadlines.headReceived(), context)
        case .body: break
        case .end: perform(deadlines.endReceived(), context)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { perform(deadlines.responseEnded(), context) }
        context.write(data, promise: promise)
    }

    /// From the observer at the front of the pipeline, on the channel's event loop.
    fileprivate func bytesArrived() {
        guard let context else { return }
        perform(deadlines.bytesArrived(), context)
    }

    private func perform(_ action: RequestDeadlines.Action, _ context: ChannelHandlerContext) {
        switch action {
        case .none:
            break
        case .arm(let deadline):
            timer?.cancel()
            let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
            timer = context.eventLoop.scheduleTask(in: deadline == .header ? header : body) {
                loopBound.value.fire(deadline)
            }
        case .disarm:
            timer?.cancel()
            timer = nil
        case .close(let deadline):
            timer = nil
            Counter(.httpConnectionsTimedOut, dimensions: [("phase", deadline.rawValue)]).increment()
            context.close(promise: nil)
        }
    }

    private func fire(_ deadline: RequestDeadlines.Deadline) {
        guard let context else { return }
        perform(deadlines.fired(deadline), context)
    }
}

/// Tells a ``RequestDeadlineHandler`` that bytes arrived, before the decoder turns them into
/// anything; passes everything on unchanged.
private final class ByteArrivalObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let owner: RequestDeadlineHandler

    init(owner: RequestDeadlineHandler) {
        self.owner = owner
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        owner.bytesArrived()
        context.fireChannelRead(data)
    }
}
