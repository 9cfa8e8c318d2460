import CHiredis
import NIOCore

/// Parses RESP replies with hiredis's standalone reader. One per connection; it owns the
/// C reader and frees it on deinit. Not thread-safe: used only on its channel's event loop.
final class HiredisReplyParser {
    private let reader: UnsafeMutablePointer<redisReader>

    init() {
        guard let reader = redisReaderCreate() else { fatalError("hiredis: out of memory creating a reader") }
        self.reader = reader
    }

    deinit {
        redisReaderFree(reader)
    }

    func feed(_ buffer: ByteBuffer) throws(RedisConnectionError) {
        let status = buffer.withUnsafeReadableBytes { bytes in
            redisReaderFeed(reader, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count)
        }
        guard status == REDIS_OK else { throw protocolError() }
    }

    /// The next complete reply, or nil when more bytes are needed.
    func next() throws(RedisConnectionError) -> RESPValue? {
        var raw: UnsafeMutableRawPointer?
        guard redisReaderGetReply(reader, &raw) == REDIS_OK else { throw protocolError() }
        guard let raw else { return nil }
        defer { freeReplyObject(raw) }
        return Self.convert(raw.assumingMemoryBound(to: redisReply.self))
    }

    private func protocolError() -> RedisConnectionError {
        let message = withUnsafeBytes(of: reader.pointee.errstr) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return RedisConnectionError(.protocolError, "invalid reply from Redis: \(message)")
    }

    private static func convert(_ reply: UnsafeMutablePointer<redisReply>) -> RESPValue {
        let value = reply.pointee
        switch value.type {
        case REDIS_REPLY_STRING:
            var buffer = ByteBufferAllocator().buffer(capacity: value.len)
            buffer.writeBytes(UnsafeRawBufferPointer(start: value.str, count: value.len))
            return .bulkString(buffer)
        case REDIS_REPLY_STATUS:
            return .simpleString(String(decoding: UnsafeRawBufferPointer(start: value.str, count: value.len), as: UTF8.self))
        case REDIS_REPLY_ERROR:
            return .error(String(decoding: UnsafeRawBufferPointer(start: value.str, count: value.len), as: UTF8.self))
        case REDIS_REPLY_INTEGER:
            return .integer(Int64(value.integer))
        case REDIS_REPLY_NIL:
            return .bulkString(nil)
        case REDIS_REPLY_ARRAY:
            guard let elements = value.element else { return .array([]) }
            return .array((0..<value.elements).map { convert(elements[$0]!) })
        default:
            return .error("ERR unsupported reply type \(value.type)")
        }
    }
}
