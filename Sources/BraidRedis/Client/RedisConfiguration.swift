import BraidCore
import Foundation

/// Where and how to reach Redis.
public struct RedisConfiguration: Sendable, Hashable {
    public var host: String
    public var port: Int
    /// ACL user; nil authenticates with the password alone (the `default` user).
    public var username: String?
    public var password: String?
    public var database: Int
    /// Connections in the pool; concurrent commands pipeline on each.
    public var poolSize: Int
    public var commandTimeout: Duration
    public var connectTimeout: Duration
    /// Delays between reconnect attempts of a pool slot: jittered, so a fleet of processes
    /// does not reconnect in lockstep after a Redis restart.
    public var reconnectBackoff: Backoff

    public init(
        host: String = "127.0.0.1", port: Int = 6379, username: String? = nil, password: String? = nil, database: Int = 0,
        poolSize: Int = 4, commandTimeout: Duration = .milliseconds(500), connectTimeout: Duration = .seconds(2),
        reconnectBackoff: Backoff = Backoff(initial: .milliseconds(50), maximum: .seconds(2), jitter: 0.5)
    ) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.poolSize = max(1, poolSize)
        self.commandTimeout = commandTimeout
        self.connectTimeout = connectTimeout
        self.reconnectBackoff = reconnectBackoff
    }

    /// Parses `redis://[user[:password]@]host[:port][/db]` (a password alone: `redis://:secret@host`).
    public init(url: String, poolSize: Int = 4, commandTimeout: Duration = .milliseconds(500)) throws(RedisConfigurationError) {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else {
            throw RedisConfigurationError("'\(url)' is not a URL; expected redis://[user[:password]@]host[:port][/db]")
        }
        if scheme == "rediss" { throw RedisConfigurationError("rediss:// (TLS) is not supported by this build (hiredis 0.14 has no TLS); use a TLS proxy") }
        guard scheme == "redis" else { throw RedisConfigurationError("unsupported scheme '\(scheme)'; expected redis://") }
        guard let host = components.host, !host.isEmpty else { throw RedisConfigurationError("'\(url)' has no host") }
        let port = components.port ?? 6379
        guard (1...65_535).contains(port) else { throw RedisConfigurationError("port \(port) is out of range") }
        var database = 0
        let path = components.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        if !path.isEmpty {
            guard let number = Int(path), number >= 0 else { throw RedisConfigurationError("database '\(path)' is not a number") }
            database = number
        }
        let user = components.user.flatMap { $0.isEmpty ? nil : $0 }?.removingPercentEncoding
        let password = components.password?.removingPercentEncoding
        self.init(
            host: host, port: port, username: password == nil ? nil : user, password: password ?? user, database: database,
            poolSize: poolSize, commandTimeout: commandTimeout)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.host == rhs.host && lhs.port == rhs.port && lhs.username == rhs.username && lhs.password == rhs.password
            && lhs.database == rhs.database && lhs.poolSize == rhs.poolSize && lhs.commandTimeout == rhs.commandTimeout
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(host)
        hasher.combine(port)
        hasher.combine(database)
    }
}

public struct RedisConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    public let message: String
    init(_ message: String) { self.message = message }
    public var description: String { message }
}
