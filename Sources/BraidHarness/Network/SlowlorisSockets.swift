import Foundation
import Synchronization

/// Slow HTTP clients (slowloris): each connects, sends the start of a request head, and then
/// one more header line whenever it is told to trickle, never finishing the head. A server
/// without a header deadline keeps every one of them open for as long as they trickle.
///
/// Plain blocking sockets on loopback; every call is short (connect, a few bytes, a
/// non-blocking peek), so callers on the cooperative pool should still run it via a thread
/// of its own when they open hundreds.
public final class SlowlorisSockets: Sendable {
    private let sockets: Mutex<[Int32]>

    private init(_ sockets: [Int32]) {
        self.sockets = Mutex(sockets)
    }

    /// Opens `count` connections to `host:port` and sends each `start`: by default the start
    /// of a request head (a header deadline's case); a whole head announcing a body it does
    /// not send tests a body deadline.
    public static func open(count: Int, port: Int, host: String = "127.0.0.1", start: String? = nil) throws(HarnessError) -> SlowlorisSockets {
        var opened: [Int32] = []
        let head = Array((start ?? "GET /v1/search?q=slow HTTP/1.1\r\nHost: \(host)\r\nUser-Agent: slowloris\r\n").utf8)
        for _ in 0..<count {
            // Close-on-exec: a child the process spawns meanwhile (a server of the local stack)
            // would otherwise inherit the socket and keep the connection open after we close it.
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else {
                opened.forEach { Glibc.close($0) }
                throw .failed("socket: \(String(cString: strerror(errno)))")
            }
            var address = try Ports.socketAddress(host: host, port: port)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                Glibc.close(fd)
                opened.forEach { Glibc.close($0) }
                throw .failed("connect to \(host):\(port): \(String(cString: strerror(errno)))")
            }
            _ = head.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            opened.append(fd)
        }
        return SlowlorisSockets(opened)
    }

    /// Sends one more header line on every connection the server has not closed; returns
    /// how many are still open.
    @discardableResult
    public func trickle() -> Int {
        let line = Array("X-Slow: \(Int.random(in: 0...9))\r\n".utf8)
        return sockets.withLock { sockets in
            sockets.filter { fd in
                Self.isOpen(fd) && line.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == line.count
            }.count
        }
    }

    /// How many connections the server has not closed yet.
    public var openCount: Int {
        sockets.withLock { $0.filter(Self.isOpen).count }
    }

    /// Closes every connection from this side.
    public func close() {
        sockets.withLock { sockets in
            sockets.forEach { Glibc.close($0) }
            sockets.removeAll()
        }
    }

    deinit {
        close()
    }

    /// Open unless the peer closed (0 bytes) or reset it. Whatever the server sent before
    /// (an answer to a finished request) is read and dropped on the way.
    static func isOpen(_ fd: Int32) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            let received = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if received == 0 { return false }
            if received < 0 { return errno == EAGAIN || errno == EWOULDBLOCK }
        }
    }
}
