import Foundation

/// One raw exchange over TCP: send bytes exactly as given (malformed HTTP included), then read
/// until the peer closes or `timeout` passes. Tests of framing and keep-alive need what no
/// HTTP client sends, and to know whether the server closed the connection.
///
/// A blocking socket with a receive timeout: call it from a thread of its own (`runOffPool`).
public struct RawExchange: Sendable {
    /// Everything the server sent.
    public var received: String
    /// Whether the server closed the connection (rather than the timeout ending the wait).
    public var closedByPeer: Bool
    public var elapsed: Duration

    /// The status code of the first response, if any arrived.
    public var status: Int? {
        guard received.hasPrefix("HTTP/1."), received.count >= 12 else { return nil }
        return Int(received.dropFirst(9).prefix(3))
    }

    public static func run(_ request: String, port: Int, host: String = "127.0.0.1", timeout: Duration) throws(HarnessError) -> RawExchange {
        let start = ContinuousClock.now
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .failed("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = try Ports.socketAddress(host: host, port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw .failed("connect to \(host):\(port): \(String(cString: strerror(errno)))") }
        let bytes = Array(request.utf8)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        let deadline = start + timeout
        while ContinuousClock.now < deadline {
            let left = start.duration(to: deadline) - start.duration(to: .now)
            var wait = timeval(tv_sec: Int(left.components.seconds), tv_usec: Int(max(1_000, left.components.attoseconds / 1_000_000_000_000)))
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
            let count = recv(fd, &buffer, buffer.count, 0)
            if count == 0 {
                return RawExchange(received: String(decoding: received, as: UTF8.self), closedByPeer: true, elapsed: start.duration(to: .now))
            }
            if count < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { continue }
                // A reset is the peer closing too.
                return RawExchange(received: String(decoding: received, as: UTF8.self), closedByPeer: true, elapsed: start.duration(to: .now))
            }
            received += buffer[0..<count]
        }
        return RawExchange(received: String(decoding: received, as: UTF8.self), closedByPeer: false, elapsed: start.duration(to: .now))
    }
}
