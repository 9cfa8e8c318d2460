import BraidCore
import BraidGateway
import BraidHarness
import BraidTestSupport
import Foundation
import Hummingbird
import Testing

/// `http.*` on a real listener: slow heads and bodies are cut off at their deadlines while a
/// normal request is served beside them; a finished keep-alive connection is left to the idle
/// timeout; past the connection cap the listener stops accepting.
@Suite("HTTP limits on a real socket")
struct HTTPLimitsTests {
    /// Generous timeouts but the one under test: the fast tier runs beside other suites on 2
    /// cores, and a stalled test must not pass for a deadline (nor fail for a slow machine).
    static func limits(header: Duration = .seconds(60), body: Duration = .seconds(60), idle: Duration = .seconds(120), connections: Int = 1_000) -> HTTPLimits {
        HTTPLimits(idleTimeout: idle, headerTimeout: header, bodyTimeout: body, maxConnections: connections)
    }

    /// Runs `body` against a server with `limits` answering `GET /ping`.
    static func withServer<T: Sendable>(_ limits: HTTPLimits, _ body: @escaping @Sendable (Int) async throws -> T) async throws -> T {
        let router = Router()
        router.get("/ping") { _, _ in "pong" }
        router.post("/ping") { request, _ in
            _ = try await request.body.collect(upTo: 1 << 16)
            return "pong"
        }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let application = Application(
            router: router, server: limits.server, configuration: limits.configuration(host: "127.0.0.1", port: 0),
            onServerRunning: { continuation.yield($0.localAddress?.port ?? 0) })
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                try await application.runService(gracefulShutdownSignals: [])
                return nil
            }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            group.addTask { try await body(port) }
            defer { group.cancelAll() }
            while let result = try await group.next() {
                if let result { return result }
            }
            throw CancellationError()
        }
    }

    static func ping(_ port: Int, timeout: Duration = .seconds(5)) async throws -> (status: Int, elapsed: Duration) {
        let start = ContinuousClock.now
        let response = try await HTTPProbe.request("http://127.0.0.1:\(port)/ping", timeout: timeout)
        return (response.status, start.duration(to: .now))
    }
    @Test func slowHeadsAreCutOffWhileANormalRequestIsServed() async throws {
        try await Self.withServer(Self.limits(header: .seconds(1))) { port in
            let slow = try await runOffPool { try SlowlorisSockets.open(count: 100, port: port) }
            // Trickling resets no deadline: the head must be complete 1 s after its first byte.
            let trickle = Task {
                while !Task.isCancelled {
                    slow.trickle()
                    try? await Task.sleep(for: .milliseconds(100))
                }
            }
            defer { trickle.cancel() }
            let (status, _) = try await Self.ping(port, timeout: .seconds(30))
            #expect(status == 200, "a normal request beside 100 slow ones")
            // Without the deadline they would stay for the idle timeout (120 s).
            try await eventually("every slow connection closed by the header deadline", within: .seconds(30)) { slow.openCount == 0 }
        }
    }

    @Test func aBodyThatNeverArrivesIsCutOff() async throws {
        try await Self.withServer(Self.limits(body: .seconds(1))) { port in
            let start = "POST /ping HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\npartial"
            let slow = try await runOffPool { try SlowlorisSockets.open(count: 5, port: port, start: start) }
            try await eventually("the body deadline did not close them", within: .seconds(30)) { slow.openCount == 0 }
        }
    }

    @Test func afterAResponseOnlyTheIdleTimeoutApplies() async throws {
        try await Self.withServer(Self.limits(header: .milliseconds(300), idle: .seconds(10))) { port in
            let done = try await runOffPool { try SlowlorisSockets.open(count: 1, port: port, start: "GET /ping HTTP/1.1\r\nHost: x\r\n\r\n") }
            try await Task.sleep(for: .milliseconds(1_500))
            #expect(done.openCount == 1, "a kept-alive connection is not a slow head")
            try await eventually("the idle timeout closes it", within: .seconds(30)) { done.openCount == 0 }
        }
    }

    @Test func pastTheConnectionCapNothingMoreIsAccepted() async throws {
        try await Self.withServer(Self.limits(connections: 4)) { port in
            let held = try await runOffPool { try SlowlorisSockets.open(count: 4, port: port) }
            try await Task.sleep(for: .milliseconds(200))
            await #expect(throws: (any Error).self, "a fifth connection is not served while four are open") {
                try await Self.ping(port, timeout: .milliseconds(800))
            }
            held.close()
            let (status, _) = try await Self.ping(port, timeout: .seconds(30))
            #expect(status == 200)
        }
    }

    // HTTP/1 framing (RequestFraming): answered at once, with a JSON error, and closed.

    @Test func aContentLengthAboveTheBodyLimitIsRefusedAtOnceWithA413() async throws {
        try await Self.withServer(Self.limits()) { port in
            let head = "POST /ping HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(HTTPLimits.maxBodyBytes + 1)\r\n\r\n{"
            let exchange = try await runOffPool { try RawExchange.run(head, port: port, timeout: .seconds(20)) }
            #expect(exchange.status == 413, "\(exchange.received)")
            #expect(exchange.received.contains(#""code":"payload_too_large""#), "\(exchange.received)")
            #expect(exchange.closedByPeer && exchange.elapsed < .seconds(10), "answered and closed at once, not after the body timeout: \(exchange.elapsed)")
        }
    }

    @Test func aMalformedChunkedBodyIsA400AndAnUnknownTransferEncodingA501() async throws {
        try await Self.withServer(Self.limits()) { port in
            let malformed = "POST /ping HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n"
            let broken = try await runOffPool { try RawExchange.run(malformed, port: port, timeout: .seconds(20)) }
            #expect(broken.status == 400, "\(broken.received)")
            #expect(broken.received.contains(#""code":"bad_request""#), "\(broken.received)")
            #expect(broken.closedByPeer)

            for encoding in ["gzip", "gzip, chunked", "identity"] {
                let unknown = "POST /ping HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: \(encoding)\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
                let refused = try await runOffPool { try RawExchange.run(unknown, port: port, timeout: .seconds(20)) }
                #expect(refused.status == 501, "Transfer-Encoding: \(encoding): \(refused.received)")
                #expect(refused.closedByPeer)
            }
            // A well-formed chunked body still works.
            let chunked = "POST /ping HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
            let fine = try await runOffPool { try RawExchange.run(chunked, port: port, timeout: .seconds(20)) }
            #expect(fine.status == 200, "\(fine.received)")
        }
    }

    @Test func anHTTP10RequestWithoutKeepAliveHasItsConnectionClosedAfterTheResponse() async throws {
        try await Self.withServer(Self.limits()) { port in
            let plain = try await runOffPool { try RawExchange.run("GET /ping HTTP/1.0\r\nHost: x\r\n\r\n", port: port, timeout: .seconds(20)) }
            #expect(plain.status == 200 && plain.received.hasSuffix("pong"), "\(plain.received)")
            #expect(plain.closedByPeer && plain.elapsed < .seconds(10), "closed after the response: \(plain.elapsed)")
            // Keep-alive asked for: the connection stays (the exchange waits out its timeout).
            let kept = try await runOffPool {
                try RawExchange.run("GET /ping HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\n\r\n", port: port, timeout: .seconds(2))
            }
            #expect(kept.status == 200 && !kept.closedByPeer, "\(kept.received)")
        }
    }
}
