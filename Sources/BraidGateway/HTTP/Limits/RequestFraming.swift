import BraidContracts
import BraidObservability
import Foundation
import Metrics
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// Answers, at the HTTP/1 framing level, what no route should have to:
/// - a `Content-Length` above the body limit: 413 at once, before any body byte is read;
/// - a `Transfer-Encoding` other than `chunked` alone: 501 (RFC 9112 §6.1);
/// - a body or head the decoder cannot parse (a malformed chunk, say): 400;
/// - an HTTP/1.0 request without `Connection: keep-alive`: the connection closes after the
///   response, as HTTP/1.0 means.
///
/// Each refusal is a JSON error like the gateway's, with `Connection: close`, and the connection
/// then closes. It sits between NIO's HTTP/1 decoder and the conversion to HTTP types (where
/// the request's version is still known); ``RequestFramingInstaller`` puts it there.
final class RequestFraming: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    let maxBodyBytes: Int
    private var state = RequestFramingState()

    init(maxBodyBytes: Int) {
        self.maxBodyBytes = maxBodyBytes
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch state.read(unwrapInboundIn(data), maxBodyBytes: maxBodyBytes) {
        case .forward(let part):
            context.fireChannelRead(wrapInboundOut(part))
        case .drop:
            break
        case .refuse(let refusal):
            refuse(refusal, context: context)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let part = unwrapOutboundIn(data)
        switch state.write(part) {
        case .forward:
            context.write(data, promise: promise)
        case .forwardThenRefuse(let refusal):
            context.write(data, promise: promise)
            refuse(refusal, context: context)
        case .forwardThenClose:
            // Handlers run on their channel's event loop, and so does this callback.
            context.writeAndFlush(data).assumeIsolated().whenComplete { result in
                promise?.completeWith(result)
                context.close(promise: nil)
            }
        case .drop:
            promise?.fail(ChannelError.ioOnClosedChannel)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is HTTPParserError, let refusal = state.parseFailed() {
            refuse(refusal, context: context)
        }
        // Passed on in any case: a route reading the broken body must fail, not see it end.
        context.fireErrorCaught(error)
    }

    private func refuse(_ refusal: RequestFramingState.Refusal, context: ChannelHandlerContext) {
        Counter(.httpRequestsRefused, dimensions: [("reason", refusal.code)]).increment()
        let body = ByteBuffer(string: #"{"error":{"code":"\#(refusal.code)","message":"\#(refusal.message)"}}"#)
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: "application/json")
        headers.add(name: "content-length", value: String(body.readableBytes))
        headers.add(name: "connection", value: "close")
        let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: refusal.status), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}

/// What ``RequestFraming`` decides, as a value: requests in flight, a refusal waiting for the
/// response before it, and whether the connection is being closed.
struct RequestFramingState {
    struct Refusal: Sendable, Equatable {
        var status: Int
        var code: String
        /// JSON-safe: no quotes or backslashes.
        var message: String
    }

    enum ReadAction: Equatable {
        case forward(HTTPServerRequestPart)
        case drop
        case refuse(Refusal)
    }

    enum WriteAction: Equatable {
        case forward
        case forwardThenRefuse(Refusal)
        /// The last part of a response begun before the request turned out broken.
        case forwardThenClose
        case drop
    }

    /// Requests forwarded whose response has not ended.
    private(set) var inFlight = 0
    /// Whether a response to the oldest request in flight has begun.
    private var responseStarted = false
    /// A refusal to send once the responses in flight have ended.
    private var pending: Refusal?
    /// A refusal was sent (or is pending): nothing more is read or written.
    private(set) var closing = false
    /// The decoder failed while a response was being written: it may end, then the connection closes.
    private var closeAfterResponse = false

    mutating func read(_ part: HTTPServerRequestPart, maxBodyBytes: Int) -> ReadAction {
        guard !closing else { return .drop }
        guard case .head(var head) = part else { return .forward(part) }
        if let refusal = Self.refusal(of: head, maxBodyBytes: maxBodyBytes) {
            closing = true
            guard inFlight == 0 else {
                pending = refusal
                return .drop
            }
            return .refuse(refusal)
        }
        if head.version == .http1_0, !head.isKeepAlive {
            // Hummingbird closes after the response when the request says so.
            head.headers.replaceOrAdd(name: "connection", value: "close")
        }
        inFlight += 1
        return .forward(.head(head))
    }

    mutating func write(_ part: HTTPServerResponsePart) -> WriteAction {
        guard pending != nil || closeAfterResponse || !closing else { return .drop }
        switch part {
        case .head(let head) where head.status.code >= 200:
            responseStarted = true
            return .forward
        case .end:
            inFlight = max(0, inFlight - 1)
            responseStarted = false
            if closeAfterResponse {
                closeAfterResponse = false
                return .forwardThenClose
            }
            if inFlight == 0, let refusal = pending {
                pending = nil
                return .forwardThenRefuse(refusal)
            }
            return .forward
        default:
            return .forward
        }
    }

    /// The decoder failed: a 400, unless a response has begun (then the connection just closes
    /// after it) or a refusal is already on its way.
    mutating func parseFailed() -> Refusal? {
        guard !closing else { return nil }
        closing = true
        guard !responseStarted else {
            closeAfterResponse = true
            return nil
        }
        inFlight = 0
        return Refusal(status: 400, code: "bad_request", message: "the request is not valid HTTP/1.1 (a malformed head or chunked body)")
    }

    static func refusal(of head: HTTPRequestHead, maxBodyBytes: Int) -> Refusal? {
        let encodings = head.headers["transfer-encoding"]
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        if !encodings.isEmpty, encodings != ["chunked"] {
            return Refusal(status: 501, code: "not_implemented", message: "Transfer-Encoding: only chunked is supported")
        }
        for value in head.headers["content-length"] {
            guard let length = Int(value.trimmingCharacters(in: .whitespaces)), length >= 0 else { continue }
            if length > maxBodyBytes {
                return Refusal(status: 413, code: "payload_too_large", message: "the body must be at most \(maxBodyBytes) bytes")
            }
        }
        return nil
    }
}

/// Puts a ``RequestFraming`` between the HTTP/1 decoder and the conversion to HTTP types when
/// it joins the pipeline (Hummingbird adds its extra handlers after that conversion), and
/// passes everything on.
final class RequestFramingInstaller: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    let maxBodyBytes: Int

    init(maxBodyBytes: Int) {
        self.maxBodyBytes = maxBodyBytes
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let pipeline = context.pipeline.syncOperations
        guard let codec = try? pipeline.handler(type: HTTP1ToHTTPServerCodec.self) else { return }
        try? pipeline.addHandler(RequestFraming(maxBodyBytes: maxBodyBytes), position: .before(codec))
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }
}
