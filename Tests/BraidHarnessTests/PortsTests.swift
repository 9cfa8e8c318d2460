import BraidHarness
import Foundation
import Testing

@Suite("Ports")
struct PortsTests {
    /// A port whose server just closed its connections first (as redis-server does when it
    /// stops) keeps TIME_WAIT sockets for about a minute: a plain bind fails, but servers bind
    /// with SO_REUSEADDR and so must the check.
    @Test func aPortWithOnlyTimeWaitConnectionsIsFree() throws {
        let port = try Ports.free()
        let listener = try Self.listen(port)
        for _ in 0..<3 {
            let client = try Self.connect(port)
            let accepted = accept(listener, nil, nil)
            try #require(accepted >= 0)
            close(accepted)  // the server side closes first, so its end goes to TIME_WAIT
            var byte: UInt8 = 0
            _ = read(client, &byte, 1)  // sees the FIN
            close(client)
        }
        close(listener)
        let deadline = ContinuousClock.now + .seconds(5)
        while Self.timeWaitSockets(on: port) == 0, ContinuousClock.now < deadline { usleep(10_000) }
        try #require(Self.timeWaitSockets(on: port) > 0, "the setup left no TIME_WAIT socket on \(port)")
        #expect(!Self.plainBindSucceeds(port), "without SO_REUSEADDR the port looks taken")
        #expect(Ports.isFree(port))
    }

    @Test func aListeningPortIsNotFree() throws {
        let port = try Ports.free()
        let listener = try Self.listen(port)
        defer { close(listener) }
        #expect(!Ports.isFree(port))
        #expect(Ports.accepts(port))
    }

    /// Free when returned: but tests running beside this one bind ports (and their outgoing
    /// connections take ephemeral ones) between the pick and the check, so one draw of the
    /// three must be free throughout. Ports that were taken would fail all three.
    @Test func freePortsAreDistinctAndFree() throws {
        var draws: [[Int]] = []
        for _ in 0..<3 {
            let ports = try Ports.free(count: 12)
            #expect(Set(ports).count == 12, "\(ports)")
            draws.append(ports)
            if ports.allSatisfy(Ports.isFree) { return }
        }
        Issue.record("in each of three draws a port was taken right after: \(draws.map { $0.filter { !Ports.isFree($0) } })")
    }

    // MARK: Sockets by hand

    static func listen(_ port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.address(port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(bound == 0 && Glibc.listen(fd, 16) == 0)
        return fd
    }

    static func connect(_ port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = Self.address(port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(connected == 0)
        return fd
    }

    static func plainBindSucceeds(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = Self.address(port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    static func address(_ port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    /// Sockets in TIME_WAIT (state 06) whose local port is `port`, from /proc/net/tcp.
    static func timeWaitSockets(on port: Int) -> Int {
        // Read to the end: /proc files report a size of 0, which a size-based read trusts.
        let table = String(decoding: FileHandle(forReadingAtPath: "/proc/net/tcp")?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        let hex = String(port, radix: 16, uppercase: true)
        let hexPort = String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        return table.split(separator: "\n").dropFirst().filter { line in
            let fields = line.split(separator: " ")
            return fields.count > 3 && fields[1].hasSuffix(":\(hexPort)") && fields[3] == "06"
        }.count
    }
}
