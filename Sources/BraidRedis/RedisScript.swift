import Crypto

/// A Lua script with its SHA1, run with ``RedisClient/evalsha(_:keys:arguments:)``.
public struct RedisScript: Sendable, Hashable {
    public let source: String
    /// Lowercase hex SHA1 of `source`, as Redis names scripts.
    public let sha1: String

    public init(_ source: String) {
        self.source = source
        self.sha1 = Insecure.SHA1.hash(data: Array(source.utf8)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}
