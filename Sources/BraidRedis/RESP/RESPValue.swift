import NIOCore

/// A RESP2 reply.
public enum RESPValue: Sendable, Hashable {
    case simpleString(String)
    case error(String)
    case integer(Int64)
    /// nil is the null bulk string (a missing key).
    case bulkString(ByteBuffer?)
    /// nil is the null array.
    case array([RESPValue]?)

    /// The text of a bulk or simple string.
    public var string: String? {
        switch self {
        case .simpleString(let text): text
        case .bulkString(let buffer?): String(buffer: buffer)
        default: nil
        }
    }

    public var isNull: Bool {
        switch self {
        case .bulkString(nil), .array(nil): true
        default: false
        }
    }
}
