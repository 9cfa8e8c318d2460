import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A real HTTP/1.1 server on a free loopback port, answering from a closure: the backend the
/// HTTP sources talk to in tests. A nil answer leaves the request hanging (for deadline tests).
final class TinyHTTPServer: Sendable {
    struct Request: Sendable {
        var method: String
        var uri: String
        var body: Data
    }

    struct Response: Sendable {
        var status: Int
        var body: Data
    }

    private let channel: any Channel
    private let received = Mutex<[Request]>([])
    let port: Int

    var baseURL: String { "http://127.0.0.1:\(port)" }
    var requests: [Request] { received.withLock { $0 } }

    static func start(_ answer: @escaping @Sendable (Request) -> Response?) async throws -> TinyHTTPServer {
        let recorder = Recorder()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap {
                    channel.pipeline.addHandler(Handler(answer: answer, record: recorder.record))
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

    func stop() async throws {
        try await channel.close()
    }

    /// Forwards recordings to the server once it exists (handlers are created before it is).
    private final class Recorder: Sendable {
        let server = Mutex<TinyHTTPServer?>(nil)
        func record(_ request: Request) {
            server.withLock { $0 }?.received.withLock { $0.append(request) }
        }
    }

    /// Unchecked: NIO calls a handler only on its channel's event loop, so its state is never shared.
    private final class Handler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        let answer: @Sendable (Request) -> Response?
        let record: @Sendable (Request) -> Void
        var head: HTTPRequestHead?
        var body = Data()

        init(answer: @escaping @Sendable (Request) -> Response?, record: @escaping @Sendable (Request) -> Void) {
            self.answer = answer
            self.record = record
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
                let request = Request(method: head.method.rawValue, uri: head.uri, body: body)
                record(request)
                guard let response = answer(request) else { return }
                var headers = HTTPHeaders()
                headers.add(name: "Content-Type", value: "application/json")
                headers.add(name: "Content-Length", value: String(response.body.count))
                let status = HTTPResponseStatus(statusCode: response.status)
                context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
                context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: response.body)))), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
        }
    }
}
