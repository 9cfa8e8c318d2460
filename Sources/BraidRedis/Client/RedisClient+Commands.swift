import NIOCore

/// Typed commands. Each maps one Redis command and names its keys, so it routes in a
/// cluster without the key table; anything else goes through ``RedisClient/send(_:timeout:)``.
extension RedisClient {
    public enum Expiration: Sendable, Hashable {
        case seconds(Int)
        case milliseconds(Int)
    }

    public enum SetCondition: Sendable, Hashable {
        /// NX: only when the key does not exist.
        case ifNotExists
        /// XX: only when the key exists.
        case ifExists
    }

    public func ping() async throws {
        _ = try await send(["PING"], keys: [])
    }

    public func get(_ key: String) async throws -> ByteBuffer? {
        try bulk(await send(["GET", .string(key)], keys: [key]), command: "GET")
    }

    public func getString(_ key: String) async throws -> String? {
        try await get(key).map { String(buffer: $0) }
    }

    /// SET with optional expiry and condition; false when a condition kept it from being set.
    @discardableResult
    public func set(_ key: String, to value: RESPArgument, expiration: Expiration? = nil, condition: SetCondition? = nil) async throws -> Bool {
        var arguments: [RESPArgument] = ["SET", .string(key), value]
        switch expiration {
        case .seconds(let seconds): arguments += ["EX", .integer(Int64(seconds))]
        case .milliseconds(let milliseconds): arguments += ["PX", .integer(Int64(milliseconds))]
        case nil: break
        }
        switch condition {
        case .ifNotExists: arguments.append("NX")
        case .ifExists: arguments.append("XX")
        case nil: break
        }
        return try await !send(arguments, keys: [key]).isNull
    }

    public func mget(_ keys: [String]) async throws -> [ByteBuffer?] {
        guard !keys.isEmpty else { return [] }
        let reply = try await send(["MGET"] + keys.map { .string($0) }, keys: keys)
        guard case .array(let values?) = reply else { throw RedisUnexpectedReplyError(command: "MGET", reply: reply) }
        return try values.map { try bulk($0, command: "MGET") }
    }

    /// Number of keys removed.
    @discardableResult
    public func del(_ keys: [String]) async throws -> Int {
        guard !keys.isEmpty else { return 0 }
        return try integer(await send(["DEL"] + keys.map { .string($0) }, keys: keys), command: "DEL")
    }

    /// False when the key does not exist.
    @discardableResult
    public func expire(_ key: String, seconds: Int) async throws -> Bool {
        try integer(await send(["EXPIRE", .string(key), .integer(Int64(seconds))], keys: [key]), command: "EXPIRE") == 1
    }

    public enum TimeToLive: Sendable, Hashable {
        case missing
        case persistent
        case seconds(Int)
    }

    public func ttl(_ key: String) async throws -> TimeToLive {
        let value = try integer(await send(["TTL", .string(key)], keys: [key]), command: "TTL")
        switch value {
        case -2: return .missing
        case -1: return .persistent
        default: return .seconds(value)
        }
    }

    public func incrby(_ key: String, _ increment: Int) async throws -> Int {
        try integer(await send(["INCRBY", .string(key), .integer(Int64(increment))], keys: [key]), command: "INCRBY")
    }

    /// The field's value after the increment.
    @discardableResult
    public func hincrby(_ key: String, field: String, by increment: Int) async throws -> Int {
        try integer(await send(["HINCRBY", .string(key), .string(field), .integer(Int64(increment))], keys: [key]), command: "HINCRBY")
    }

    /// Number of fields added (not updated).
    @discardableResult
    public func hset(_ key: String, fields: [(String, RESPArgument)]) async throws -> Int {
        precondition(!fields.isEmpty, "HSET needs at least one field")
        var arguments: [RESPArgument] = ["HSET", .string(key)]
        for (field, value) in fields { arguments += [.string(field), value] }
        return try integer(await send(arguments, keys: [key]), command: "HSET")
    }

    public func hgetall(_ key: String) async throws -> [String: ByteBuffer] {
        let reply = try await send(["HGETALL", .string(key)], keys: [key])
        guard case .array(let values?) = reply, values.count % 2 == 0 else { throw RedisUnexpectedReplyError(command: "HGETALL", reply: reply) }
        var fields: [String: ByteBuffer] = [:]
        for index in stride(from: 0, to: values.count, by: 2) {
            guard let name = values[index].string, case .bulkString(let value?) = values[index + 1] else {
                throw RedisUnexpectedReplyError(command: "HGETALL", reply: reply)
            }
            fields[name] = value
        }
        return fields
    }

    /// EVALSHA, loading the script first when Redis answers NOSCRIPT (after a restart, a
    /// SCRIPT FLUSH, or on a cluster node that has not run it yet), so callers never handle
    /// script caching themselves. In a cluster the keys must share a slot.
    public func evalsha(_ script: RedisScript, keys: [String], arguments: [RESPArgument]) async throws -> RESPValue {
        let command: [RESPArgument] = ["EVALSHA", .string(script.sha1), .integer(Int64(keys.count))] + keys.map { .string($0) } + arguments
        return try await send(command, keys: keys, script: script)
    }

    private func bulk(_ reply: RESPValue, command: String) throws -> ByteBuffer? {
        switch reply {
        case .bulkString(let buffer): return buffer
        default: throw RedisUnexpectedReplyError(command: command, reply: reply)
        }
    }

    private func integer(_ reply: RESPValue, command: String) throws -> Int {
        guard case .integer(let value) = reply else { throw RedisUnexpectedReplyError(command: command, reply: reply) }
        return Int(value)
    }
}
