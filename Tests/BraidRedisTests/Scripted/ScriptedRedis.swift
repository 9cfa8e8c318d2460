@testable import BraidRedis
import Logging
import NIOCore
import NIOEmbedded
import NIOPosix
import Synchronization

/// Redis nodes played by a test, for the real ``RedisClient`` over in-memory channels.
///
/// The client's transport (``transport``) hands back a `NIOAsyncTestingChannel` per
/// connection instead of a socket, with the client's real pipeline on it. ``run()`` serves
/// each one: it decodes every command the client writes, records it in ``log`` and writes
/// back what the node's script answers. Scripts see the command and the one before it on the
/// same connection (ASKING). `PING` answers `PONG` unless the script says otherwise; a script
/// answering `nil` for anything else sends `-ERR unknown command`.
///
/// Nothing listens on a port: every instance is private to its test, so tests run in parallel.
final class ScriptedRedis: Sendable {
    /// A command as a node received it.
    struct Received: Sendable, Equatable, CustomStringConvertible {
        let node: RedisEndpoint
        /// Which connection it came on, counted from 0 over all nodes.
        let connection: Int
        let command: [String]
        var description: String { "\(node)#\(connection) \(command.joined(separator: " "))" }
    }

    /// What a script does with a command.
    enum Answer: Sendable {
        case reply(RESPValue)
        /// Nothing at all: the client's command timeout decides.
        case silence
    }

    typealias Script = @Sendable (_ command: [String], _ previous: [String]?) -> Answer?

    /// What the transport throws for a node that is down (or has no script): connection refused.
    struct Refused: Error, CustomStringConvertible {
        let node: RedisEndpoint
        var description: String { "connection to \(node) refused (scripted)" }
    }

    private struct Connection: Sendable {
        let id: Int
        let node: RedisEndpoint
        let channel: NIOAsyncTestingChannel
    }

    private struct State {
        var scripts: [RedisEndpoint: Script] = [:]
        var down: Set<RedisEndpoint> = []
        var log: [Received] = []
        var connections: [Connection] = []
        var stopped = false
    }

    private let state = Mutex(State())
    private let opened: (stream: AsyncStream<Connection>, continuation: AsyncStream<Connection>.Continuation)

    init() {
        opened = AsyncStream.makeStream(of: Connection.self)
    }

    /// Makes `node` answer with `script` (replacing its script, if any). Until a node has a
    /// script, connecting to it is refused.
    func serve(_ node: RedisEndpoint, _ script: @escaping Script) {
        state.withLock { $0.scripts[node] = script }
    }

    /// The node dies: its connections close and new ones are refused until ``revive(_:)``.
    func kill(_ node: RedisEndpoint) {
        let channels = state.withLock { state in
            state.down.insert(node)
            return state.connections.filter { $0.node == node }.map(\.channel)
        }
        for channel in channels { channel.close(promise: nil) }
    }

    func revive(_ node: RedisEndpoint) {
        state.withLock { _ = $0.down.remove(node) }
    }

    /// Every command received so far, in order.
    var log: [Received] { state.withLock { $0.log } }

    /// The commands `node` received, in order.
    func commands(on node: RedisEndpoint) -> [[String]] {
        log.filter { $0.node == node }.map(\.command)
    }

    /// How many times `node` received `command` (compared on its first `command.count` words).
    func count(_ command: [String], on node: RedisEndpoint? = nil) -> Int {
        log.filter { node == nil || $0.node == node }.filter { Array($0.command.prefix(command.count)) == command }.count
    }

    /// Connections the client opened to `node`, closed ones included.
    func channels(to node: RedisEndpoint) -> [NIOAsyncTestingChannel] {
        state.withLock { $0.connections.filter { $0.node == node }.map(\.channel) }
    }

    /// Opens in-memory connections to scripted nodes.
    var transport: RedisTransport {
        RedisTransport { [self] endpoint, _, _, initialize in
            let refused = state.withLock { $0.scripts[endpoint] == nil || $0.down.contains(endpoint) || $0.stopped }
            if refused { throw Refused(node: endpoint) }
            let channel = NIOAsyncTestingChannel()
            try await channel.eventLoop.flatSubmit { initialize(channel) }.get()
            try await channel.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: endpoint.port)).get()
            // Checked again with the registration, under one lock: a connection opened while
            // its node was killed, or while the nodes stopped, is closed rather than left
            // open and unserved (its set-up would wait forever: this clock never moves alone).
            let connection = state.withLock { state -> Connection? in
                guard !state.down.contains(endpoint), !state.stopped else { return nil }
                let connection = Connection(id: state.connections.count, node: endpoint, channel: channel)
                state.connections.append(connection)
                opened.continuation.yield(connection)
                return connection
            }
            guard connection != nil else {
                try? await channel.close()
                throw Refused(node: endpoint)
            }
            return channel
        }
    }

    /// Serves every connection until cancelled, then closes them all.
    func run() async {
        await withTaskCancellationHandler {
            await withDiscardingTaskGroup { group in
                for await connection in opened.stream {
                    group.addTask { await self.serve(connection) }
                }
            }
        } onCancel: {
            opened.continuation.finish()
            let channels = state.withLock { state in
                state.stopped = true
                return state.connections.map(\.channel)
            }
            for channel in channels { channel.close(promise: nil) }
        }
    }

    private func serve(_ connection: Connection) async {
        let parser = HiredisReplyParser()
        var previous: [String]?
        while true {
            guard let written = try? await connection.channel.waitForOutboundWrite(as: ByteBuffer.self) else { return }
            do {
                try parser.feed(written)
                while let value = try parser.next() {
                    let command = Self.words(value)
                    let script = state.withLock { state in
                        state.log.append(Received(node: connection.node, connection: connection.id, command: command))
                        return state.scripts[connection.node]
                    }
                    let answer = script?(command, previous) ?? Self.fallback(command)
                    previous = command
                    guard case .reply(let reply) = answer else { continue }
                    var buffer = ByteBuffer()
                    RESPWire.write(reply, into: &buffer)
                    try await connection.channel.writeInbound(buffer)
                }
            } catch {
                return
            }
        }
    }

    private static func fallback(_ command: [String]) -> Answer {
        command.first?.uppercased() == "PING" ? .reply(.simpleString("PONG")) : .reply(.error("ERR unknown command '\(command.first ?? "")'"))
    }

    private static func words(_ value: RESPValue) -> [String] {
        guard case .array(let items?) = value else { return [] }
        return items.map { $0.string ?? "" }
    }

    /// A client of these nodes: real configuration, real routing, scripted connections.
    func client(_ configuration: RedisConfiguration) -> RedisClient {
        var logger = Logger(label: "braid.redis.scripted")
        logger.logLevel = .critical
        return RedisClient(
            configuration: configuration, eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: logger, transport: transport)
    }

    /// Runs the nodes and a client for `body`; `connected` waits for the client to be ready first.
    func withClient<T: Sendable>(
        _ configuration: RedisConfiguration, connected: Bool = true, _ body: @Sendable (RedisClient) async throws -> T
    ) async throws -> T {
        let client = client(configuration)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await self.run() }
            group.addTask { try await client.run() }
            defer { group.cancelAll() }
            // Generous: the fast tier runs everything at once, and a busy machine can keep a
            // task from a thread for seconds.
            if connected { try await client.waitUntilConnected(timeout: .seconds(120)) }
            return try await body(client)
        }
    }
}

/// Writes replies in RESP2, as a server would.
enum RESPWire {
    static func write(_ value: RESPValue, into buffer: inout ByteBuffer) {
        switch value {
        case .simpleString(let text): buffer.writeString("+\(text)\r\n")
        case .error(let text): buffer.writeString("-\(text)\r\n")
        case .integer(let number): buffer.writeString(":\(number)\r\n")
        case .bulkString(nil): buffer.writeString("$-1\r\n")
        case .bulkString(let bytes?):
            buffer.writeString("$\(bytes.readableBytes)\r\n")
            buffer.writeImmutableBuffer(bytes)
            buffer.writeString("\r\n")
        case .array(nil): buffer.writeString("*-1\r\n")
        case .array(let items?):
            buffer.writeString("*\(items.count)\r\n")
            for item in items { write(item, into: &buffer) }
        }
    }
}

extension RESPValue {
    static func bulk(_ text: String) -> RESPValue { .bulkString(ByteBuffer(string: text)) }
    static let ok = RESPValue.simpleString("OK")
}
