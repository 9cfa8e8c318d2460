@testable import BraidRedis
import NIOCore
import Testing

/// The RESP encoder and the hiredis reply parser without a server: exact bytes out, every
/// reply shape in, in any chunking.
@Suite("RESP codec")
struct RESPCodecTests {
    static func encoded(_ arguments: [RESPArgument]) -> String {
        var buffer = ByteBufferAllocator().buffer(capacity: 64)
        RESPCommandEncoder.encode(arguments, into: &buffer)
        return String(buffer: buffer)
    }

    @Test func commandsAreArraysOfBulkStrings() {
        #expect(Self.encoded(["PING"]) == "*1\r\n$4\r\nPING\r\n")
        #expect(Self.encoded(["SET", .string("k"), .integer(-42)]) == "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$3\r\n-42\r\n")
        // Lengths count UTF-8 bytes, not characters; binary bytes pass unchanged.
        #expect(Self.encoded([.string("カレー")]) == "*1\r\n$9\r\nカレー\r\n")
        #expect(Self.encoded([.bytes(ByteBuffer(bytes: [0, 13, 10]))]) == "*1\r\n$3\r\n\u{0}\r\n\r\n")
        #expect(Self.encoded([.string("")]) == "*1\r\n$0\r\n\r\n")
    }

    /// Feeds `wire` to a parser in pieces of `chunk` bytes and collects every reply.
    static func parse(_ wire: [UInt8], chunk: Int) throws -> [RESPValue] {
        let parser = HiredisReplyParser()
        var replies: [RESPValue] = []
        var offset = 0
        while offset < wire.count {
            let end = min(offset + chunk, wire.count)
            try parser.feed(ByteBuffer(bytes: wire[offset..<end]))
            while let reply = try parser.next() { replies.append(reply) }
            offset = end
        }
        return replies
    }

    @Test(arguments: [1, 2, 7, 1 << 20])
    func everyReplyShapeInAnyChunking(chunk: Int) throws {
        let wire = Array((
            "+OK\r\n" + "-WRONGTYPE Operation against a key\r\n" + ":-7\r\n" + "$5\r\nhello\r\n" + "$-1\r\n" + "*-1\r\n" + "*0\r\n"
                + "*3\r\n:1\r\n*2\r\n$1\r\na\r\n*1\r\n+deep\r\n$-1\r\n"
        ).utf8)
        let replies = try Self.parse(wire, chunk: chunk)
        #expect(replies == [
            .simpleString("OK"), .error("WRONGTYPE Operation against a key"), .integer(-7),
            // hiredis has one nil reply for both: the null array reads as a null bulk string.
            .bulkString(ByteBuffer(string: "hello")), .bulkString(nil), .bulkString(nil), .array([]),
            .array([.integer(1), .array([.bulkString(ByteBuffer(string: "a")), .array([.simpleString("deep")])]), .bulkString(nil)]),
        ])
    }

    @Test func aPartialReplyWaitsForTheRest() throws {
        let parser = HiredisReplyParser()
        try parser.feed(ByteBuffer(string: "$10\r\n01234"))
        #expect(try parser.next() == nil)
        try parser.feed(ByteBuffer(string: "56789\r\n:3"))
        #expect(try parser.next() == .bulkString(ByteBuffer(string: "0123456789")))
        #expect(try parser.next() == nil)
        try parser.feed(ByteBuffer(string: "\r\n"))
        #expect(try parser.next() == .integer(3))
    }

    @Test func bigBulkStringsArriveWhole() throws {
        let payload = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let wire = Array("$\(payload.count)\r\n".utf8) + payload + Array("\r\n".utf8)
        let replies = try Self.parse(wire, chunk: 65_536)
        #expect(replies.count == 1)
        guard case .bulkString(let buffer?) = replies.first else { Issue.record("not a bulk string: \(replies)"); return }
        #expect(Array(buffer.readableBytesView) == payload)
    }

    @Test func bytesThatAreNotRESPAreAProtocolError() throws {
        let parser = HiredisReplyParser()
        try? parser.feed(ByteBuffer(string: "HTTP/1.1 400 Bad Request\r\n"))
        let error = #expect(throws: RedisConnectionError.self) { _ = try parser.next() }
        #expect(error?.kind == .protocolError)
    }
}
