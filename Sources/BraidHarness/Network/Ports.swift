import Foundation

/// Loopback ports: finding free ones, and telling a taken one from a recently closed one.
public enum Ports {
    /// A TCP port on 127.0.0.1 that nothing is bound to right now.
    public static func free() throws(HarnessError) -> Int {
        try free(count: 1)[0]
    }

    /// `port`, or a free one when it is nil.
    public static func given(_ port: Int?) throws(HarnessError) -> Int {
        if let port { return port }
        return try free()
    }

    /// `count` distinct free ports (each held until all are found, so none repeats).
    public static func free(count: Int) throws(HarnessError) -> [Int] {
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        var ports: [Int] = []
        for _ in 0..<count {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw HarnessError.failed("socket failed: \(String(cString: strerror(errno)))") }
            held.append(fd)
            try bind(fd, port: 0, reuseAddress: false)
            var address = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            ports.append(Int(UInt16(bigEndian: address.sin_port)))
        }
        return ports
    }

    /// Whether a server could bind 127.0.0.1:`port` now. The check binds with SO_REUSEADDR,
    /// as redis-server, the broker and the gateway do: connections left in TIME_WAIT by a
    /// server that just stopped do not keep them from binding, so they must not count as a
    /// listener here either (a plain bind fails for about a minute after a stop).
    public static func isFree(_ port: Int) -> Bool {
        (try? withSocket { fd throws(HarnessError) in try bind(fd, port: port, reuseAddress: true) }) != nil
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    public static func accepts(_ port: Int, host: String = "127.0.0.1") -> Bool {
        (try? withSocket { fd throws(HarnessError) -> Bool in
            var address = try socketAddress(host: host, port: port)
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
        }) ?? false
    }

    static func socketAddress(host: String, port: Int) throws(HarnessError) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { throw .failed("not an IPv4 address: \(host)") }
        return address
    }

    private static func bind(_ fd: Int32, port: Int, reuseAddress: Bool) throws(HarnessError) {
        if reuseAddress {
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = try socketAddress(host: "127.0.0.1", port: port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw .failed("bind 127.0.0.1:\(port): \(String(cString: strerror(errno)))") }
    }

    private static func withSocket<T>(_ body: (Int32) throws(HarnessError) -> T) throws(HarnessError) -> T {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw .failed("socket failed: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        return try body(fd)
    }
}
