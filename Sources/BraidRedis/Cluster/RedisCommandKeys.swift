import NIOCore

/// Which arguments of a command are keys, so a cluster client can route it by slot.
///
/// Typed commands (``RedisClient/get(_:)``, ``RedisClient/evalsha(_:keys:arguments:)``, …)
/// name their keys themselves. A raw ``RedisClient/send(_:timeout:)`` is routed with this
/// table, which covers the string, hash, set, sorted-set, list, key-space and scripting
/// commands plus the key-less server commands; a command it does not know is refused in
/// cluster mode (never guessed): send it with ``RedisClient/send(_:keys:timeout:)``, which
/// takes the keys explicitly (`keys: []` for a key-less command, which goes to any node).
/// Standalone mode never consults the table.
public enum RedisCommandKeys {
    /// Where a command's keys are, in the style of Redis's `COMMAND INFO` key specs.
    enum Positions: Sendable, Hashable {
        /// No keys: the command may run on any node.
        case none
        /// Arguments `first`, `first + step`, … up to `last` (a negative `last` counts from
        /// the end: -1 is the last argument). Positions count the command name as 0.
        case range(first: Int, last: Int, step: Int)
        /// EVAL, EVALSHA, FCALL: the number of keys is argument `at`, the keys follow it.
        case counted(at: Int)
    }

    /// Whether the table knows the command (case-insensitive), i.e. whether a raw `send` of
    /// it can be routed in cluster mode.
    public static func knows(_ command: String) -> Bool { table[command.uppercased()] != nil }

    /// The slot every key of `arguments` hashes to, nil for a key-less command.
    ///
    /// Throws ``RedisRoutingError`` when the command is unknown to the table or when its
    /// keys span slots: both are programming errors, and the command must not be sent.
    static func slot(of arguments: [RESPArgument]) throws(RedisRoutingError) -> Int? {
        guard let first = arguments.first else {
            throw RedisRoutingError(.unknownKeys, command: "", "an empty command cannot be routed")
        }
        let name = first.commandName
        guard let positions = table[name] else {
            throw RedisRoutingError(
                .unknownKeys, command: name,
                "the cluster client does not know which arguments of \(name) are keys; send it with send(_:keys:) naming them (keys: [] for a key-less command)"
            )
        }
        var slot: Int?
        var firstKey: RESPArgument?
        for index in keyIndices(positions, arguments) {
            let key = arguments[index]
            let keySlot = key.hashSlot
            if let slot, slot != keySlot, let firstKey {
                throw crossSlot(name, firstKey, slot, key, keySlot)
            }
            if slot == nil { (slot, firstKey) = (keySlot, key) }
        }
        return slot
    }

    /// The slot shared by explicitly named keys, nil when there are none.
    static func slot(ofKeys keys: [String], command: String) throws(RedisRoutingError) -> Int? {
        guard let first = keys.first else { return nil }
        let slot = RedisHashSlot.slot(of: first)
        for key in keys.dropFirst() {
            let keySlot = RedisHashSlot.slot(of: key)
            if keySlot != slot { throw crossSlot(command, .string(first), slot, .string(key), keySlot) }
        }
        return slot
    }

    private static func crossSlot(_ command: String, _ a: RESPArgument, _ slotA: Int, _ b: RESPArgument, _ slotB: Int) -> RedisRoutingError {
        RedisRoutingError(
            .crossSlot, command: command,
            "\(command) names keys in different cluster slots ('\(a.displayText)' → slot \(slotA), '\(b.displayText)' → slot \(slotB)); a cluster runs a command on one node only, so give the keys a common hash tag {…} or split the command; it was not sent"
        )
    }

    static func keyIndices(_ positions: Positions, _ arguments: [RESPArgument]) -> StrideTo<Int> {
        switch positions {
        case .none:
            return stride(from: 0, to: 0, by: 1)
        case .range(let first, let last, let step):
            let end = last < 0 ? arguments.count + last : min(last, arguments.count - 1)
            return stride(from: first, to: max(first, end + 1), by: step)
        case .counted(let at):
            guard at < arguments.count, let count = arguments[at].integerValue, count > 0 else {
                return stride(from: 0, to: 0, by: 1)
            }
            return stride(from: at + 1, to: min(arguments.count, at + 1 + count), by: 1)
        }
    }

    private static let single = Positions.range(first: 1, last: 1, step: 1)
    private static let all = Positions.range(first: 1, last: -1, step: 1)

    static let table: [String: Positions] = {
        var table: [String: Positions] = [:]
        for name in [
            "GET", "SET", "SETNX", "SETEX", "PSETEX", "GETSET", "GETDEL", "GETEX", "APPEND", "STRLEN", "SETRANGE",
            "GETRANGE", "INCR", "INCRBY", "INCRBYFLOAT", "DECR", "DECRBY", "SETBIT", "GETBIT", "BITCOUNT",
            "EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT", "PERSIST", "TTL", "PTTL", "EXPIRETIME", "TYPE", "DUMP", "RESTORE",
            "HSET", "HSETNX", "HMSET", "HGET", "HMGET", "HDEL", "HGETALL", "HKEYS", "HVALS", "HLEN", "HEXISTS",
            "HINCRBY", "HINCRBYFLOAT", "HSCAN", "HSTRLEN", "HRANDFIELD",
            "SADD", "SREM", "SMEMBERS", "SISMEMBER", "SMISMEMBER", "SCARD", "SPOP", "SRANDMEMBER", "SSCAN",
            "ZADD", "ZREM", "ZRANGE", "ZRANGEBYSCORE", "ZREVRANGE", "ZREVRANGEBYSCORE", "ZSCORE", "ZMSCORE", "ZCARD",
            "ZINCRBY", "ZRANK", "ZREVRANK", "ZCOUNT", "ZSCAN", "ZREMRANGEBYSCORE", "ZREMRANGEBYRANK", "ZPOPMIN", "ZPOPMAX",
            "LPUSH", "RPUSH", "LPUSHX", "RPUSHX", "LPOP", "RPOP", "LRANGE", "LLEN", "LTRIM", "LINDEX", "LSET", "LREM", "LPOS",
            "XADD", "XLEN", "XRANGE", "XREVRANGE", "XTRIM", "XDEL", "PFADD",
        ] {
            table[name] = single
        }
        for name in ["MGET", "DEL", "UNLINK", "EXISTS", "TOUCH", "PFCOUNT", "SINTER", "SUNION", "SDIFF"] {
            table[name] = all
        }
        for name in ["MSET", "MSETNX"] { table[name] = .range(first: 1, last: -1, step: 2) }
        for name in ["RENAME", "RENAMENX", "SMOVE", "LMOVE", "RPOPLPUSH", "COPY", "SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"] {
            table[name] = name.hasSuffix("STORE") ? all : .range(first: 1, last: 2, step: 1)
        }
        for name in ["EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "FCALL", "FCALL_RO"] { table[name] = .counted(at: 2) }
        for name in [
            "PING", "ECHO", "INFO", "TIME", "SCRIPT", "FUNCTION", "CLUSTER", "CLIENT", "ACL", "CONFIG", "COMMAND",
            "DEBUG", "DBSIZE", "FLUSHALL", "FLUSHDB", "SCAN", "KEYS", "RANDOMKEY", "LASTSAVE", "SLOWLOG", "LATENCY",
            "WAIT", "READONLY", "READWRITE", "ASKING", "AUTH", "SELECT", "PUBLISH", "ROLE", "LOLWUT",
        ] {
            table[name] = Positions.none
        }
        return table
    }()
}

/// A command that cannot be routed in cluster mode: a programming error, never sent.
public struct RedisRoutingError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// The command's keys hash to different slots.
        case crossSlot
        /// The client does not know which arguments of a raw command are keys.
        case unknownKeys
    }

    public let kind: Kind
    /// The command name, upper-case.
    public let command: String
    public let message: String

    init(_ kind: Kind, command: String, _ message: String) {
        self.kind = kind
        self.command = command
        self.message = message
    }

    public var description: String { "Redis cluster routing (\(kind.rawValue)): \(message)" }
}

extension RESPArgument {
    /// The argument as an upper-case command name.
    var commandName: String {
        switch self {
        case .string(let text): text.uppercased()
        case .bytes(let bytes): String(buffer: bytes).uppercased()
        case .integer(let value): String(value)
        }
    }

    var hashSlot: Int {
        switch self {
        case .string(let text): RedisHashSlot.slot(of: text)
        case .bytes(let bytes): RedisHashSlot.slot(of: bytes)
        case .integer(let value): RedisHashSlot.slot(of: String(value))
        }
    }

    var integerValue: Int? {
        switch self {
        case .integer(let value): Int(value)
        case .string(let text): Int(text)
        case .bytes(let bytes): Int(String(buffer: bytes))
        }
    }

    /// For error messages: the text, shortened.
    var displayText: String {
        let text: String
        switch self {
        case .string(let value): text = value
        case .bytes(let bytes): text = String(buffer: bytes)
        case .integer(let value): text = String(value)
        }
        return text.count > 80 ? text.prefix(77) + "…" : text
    }
}
