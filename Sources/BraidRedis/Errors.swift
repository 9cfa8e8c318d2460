/// An error reply from the Redis server (WRONGTYPE, NOSCRIPT, …): the command reached
/// Redis and was refused. Retrying the same command will fail the same way.
public struct RedisServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The whole error line, e.g. `WRONGTYPE Operation against a key holding the wrong kind of value`.
    public let message: String

    public init(message: String) {
        self.message = message
    }

    /// The error's first word, e.g. `WRONGTYPE`, `NOSCRIPT`, `ERR`.
    public var code: String { String(message.prefix { $0 != " " }) }
    public var description: String { "Redis: \(message)" }
}

/// Redis could not be reached or the connection failed: the command's fate is unknown
/// (for `.timeout` and `.closed`) or it was never sent (`.unavailable`). Callers may retry
/// idempotent commands; the client reconnects by itself.
public struct RedisConnectionError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// No connection is up right now; the command was not sent.
        case unavailable
        /// The connection closed before the reply arrived.
        case closed
        /// No reply within the command's deadline.
        case timeout
        /// The server sent bytes that are not RESP.
        case protocolError
        /// Connecting, AUTH or SELECT failed.
        case connectFailed
        /// The client has been shut down.
        case shutdown
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "Redis connection (\(kind.rawValue)): \(message)" }
}

/// A reply of a shape the typed command did not expect.
public struct RedisUnexpectedReplyError: Error, Sendable, CustomStringConvertible {
    public let command: String
    public let reply: RESPValue
    public var description: String { "unexpected reply to \(command): \(reply)" }
}
