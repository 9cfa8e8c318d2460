import NIOCore

/// One argument of a command, written straight into the outgoing buffer.
public enum RESPArgument: Sendable, Hashable, ExpressibleByStringLiteral {
    case string(String)
    case bytes(ByteBuffer)
    case integer(Int64)

    public init(stringLiteral value: String) { self = .string(value) }
    public init(_ value: String) { self = .string(value) }
    public init(_ value: Int) { self = .integer(Int64(value)) }
    public init(_ value: ByteBuffer) { self = .bytes(value) }
}

/// Encodes commands as RESP arrays of bulk strings.
///
/// Hand-written rather than `redisFormatCommandArgv`: this writes into the channel's own
/// buffer with no C allocation, no copy and no free per command — the hot path of every
/// request. Replies are parsed by hiredis (``HiredisReplyParser``).
enum RESPCommandEncoder {
    static func encode(_ arguments: [RESPArgument], into buffer: inout ByteBuffer) {
        buffer.writeInteger(UInt8(ascii: "*"))
        writeDecimal(arguments.count, into: &buffer)
        for argument in arguments {
            switch argument {
            case .string(let text):
                buffer.writeInteger(UInt8(ascii: "$"))
                writeDecimal(text.utf8.count, into: &buffer)
                buffer.writeString(text)
            case .bytes(let bytes):
                buffer.writeInteger(UInt8(ascii: "$"))
                writeDecimal(bytes.readableBytes, into: &buffer)
                buffer.writeImmutableBuffer(bytes)
            case .integer(let value):
                let text = String(value)
                buffer.writeInteger(UInt8(ascii: "$"))
                writeDecimal(text.utf8.count, into: &buffer)
                buffer.writeString(text)
            }
            buffer.writeStaticString("\r\n")
        }
    }

    private static func writeDecimal(_ value: Int, into buffer: inout ByteBuffer) {
        buffer.writeString(String(value))
        buffer.writeStaticString("\r\n")
    }
}
