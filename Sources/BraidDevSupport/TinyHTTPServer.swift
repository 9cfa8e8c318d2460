import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A real HTTP/1.1 server on a free loopback port, answering from a closure: the backend the
/// HTTP sources (and workers with `search.source: http`) talk to in tests. A nil answer leaves
/// the request hanging (for deadline tests); an answer with a delay is sent after it, without
/// holding up other requests.
public final class TinyHTTPServer: Sendable {
    public struct Request: Sendable {
        public var method: String
        public var uri: String
        /// Header values by lower-cased name.
        public var headers: [String: String]
        public var body: Data
    }

    public struct Response: Sendable {
        public var status: Int
        public var body: Data
        public var delay: Duration

        public init(status: Int, body: Data, delay: Duration = .zero) {
            self.status = status
            self.body = body
            self.delay = delay
        }
    }

    private struct Load {
        var received: [Request] = []
        var open = 0
        var maxOpen = 0
    }

    private let channel: any Channel
    private let load = Mutex(Load())
    public let port: Int

    public var baseURL: String { "http://127.0.0.1:\(port)" }
    public var requests: [Request] { load.withLock { $0.received } }
    /// Most requests answered concurrently so far.
    public var maxConcurrentRequests: Int { load.withLock { $0.maxOpen } }

    public static func start(_ answer: @escaping @Sendable (Request) -> Response?) async throws -> TinyHTTPServer {
        let recorder = Recorder()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap {
                    channel.pipeline.addHandler(Handler(answer: answer, recorder: recorder))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let server = TinyHTTPServer(channel: channel, port: channel.localAddress?.port ?? 0)
        recorder.server.withLock { $0 = server }
        return server
    }

    private init(channel: any Channel, port: Int) {
        self.channel = channel
        self.port = port
    }

    public func stop() async throws {
        try await channel.close()
    }

    /// Forwards recordings to the server once it exists (handlers are created before it is).
    private final class Recorder: Sendable {
        let server = Mutex<TinyHTTPServer?>(nil)

        func received(_ request: Request) {
            server.withLock { $0 }?.load.withLock { load in
                load.received.append(request)
                load.open += 1
                load.maxOpen = max(load.maxOpen, load.open)
            }
        }

        func answered() {
            server.withLock { $0 }?.load.withLock { $0.open -= 1 }
        }
    }

    /// Unchecked: NIO calls a handler only on its channel's event loop, so its state is never shared.
    private final class Handler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        let answer: @Sendable (Request) -> Response?
        let recorder: Recorder
        var head: HTTPRequestHead?
        var body = Data()

        init(answer: @escaping @Sendable (Request) -> Response?, recorder: Recorder) {
            self.answer = answer
            self.recorder = recorder
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
                body = Data()
            case .body(var buffer):
                body.append(contentsOf: buffer.readBytes(length: buffer.readableBytes) ?? [])
            case .end:
                guard let head else { return }
                let headers = Dictionary(head.headers.map { ($0.name.lowercased(), $0.value) }) { first, _ in first }
                let request = Request(method: head.method.rawValue, uri: head.uri, headers: headers, body: body)
                recorder.received(request)
                guard let response = answer(request) else { return }
                if response.delay <= .zero {
                    respond(response, version: head.version, context: context)
                } else {
                    let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                    let nanoseconds = response.delay.components.seconds * 1_000_000_000 + response.delay.components.attoseconds / 1_000_000_000
                    context.eventLoop.scheduleTask(in: .nanoseconds(nanoseconds)) {
                        let (handler, context) = bound.value
                        handler.respond(response, version: head.version, context: context)
                    }
                }
            }
        }

        private func respond(_ response: Response, version: HTTPVersion, context: ChannelHandlerContext) {
            recorder.answered()
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "application/json")
            headers.add(name: "Content-Length", value: String(response.body.count))
            let status = HTTPResponseStatus(statusCode: response.status)
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: status, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: response.body)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}
