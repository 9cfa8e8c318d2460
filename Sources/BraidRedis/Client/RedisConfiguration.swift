import Foundation

/// Where and how to reach Redis: one server, or a Redis Cluster; plaintext or TLS.
public struct RedisConfiguration: Sendable, Hashable {
    /// The server (standalone), or the seed node when ``cluster`` lists no seeds.
    public var host: String
    public var port: Int
    /// ACL user; nil authenticates with the password alone (the `default` user).
    public var username: String?
    public var password: String?
    /// Must be 0 for a cluster, which has one database only.
    public var database: Int
    /// Connections in the pool (per primary in cluster mode); concurrent commands pipeline on each.
    public var poolSize: Int
    public var commandTimeout: Duration
    public var connectTimeout: Duration
    /// Delays between reconnect attempts of a pool slot: jittered, so a fleet of processes
    /// does not reconnect in lockstep after a Redis restart.
    public var reconnectBackoff: ReconnectBackoff
    /// TLS for every connection (`rediss://` URLs set it); nil speaks plaintext.
    public var tls: TLS?
    /// Cluster mode; nil talks to the single server at host:port.
    public var cluster: Cluster?

    /// TLS settings. The defaults verify the server's certificate against the system's trust
    /// roots and its name against the host connected to.
    public struct TLS: Sendable, Hashable {
        /// PEM file of the CA certificates to trust; nil trusts the system's roots.
        public var caFile: String?
        /// PEM file of the client certificate (chain), for servers that require mutual TLS
        /// (`tls-auth-clients yes`); needs ``keyFile``.
        public var certificateFile: String?
        /// PEM file of the client certificate's private key.
        public var keyFile: String?
        /// The name sent as SNI and checked against the server's certificate; nil uses each
        /// node's host (no SNI for an IP address, which is then checked against the
        /// certificate's IP addresses). Set it when nodes are reached by IP but the
        /// certificate names a host, as with managed services behind one wildcard name.
        /// A certificate that names the connected IP address is accepted too (NIOSSL's rule).
        public var serverName: String?
        /// Whether the certificate must be issued for the server's name (the chain is always
        /// verified). Turn off only for certificates without usable names.
        public var verifyServerName: Bool

        public init(
            caFile: String? = nil, certificateFile: String? = nil, keyFile: String? = nil, serverName: String? = nil,
            verifyServerName: Bool = true
        ) {
            self.caFile = caFile
            self.certificateFile = certificateFile
            self.keyFile = keyFile
            self.serverName = serverName
            self.verifyServerName = verifyServerName
        }
    }

    /// Cluster mode: the client reads the slot map from the nodes and routes each command to
    /// the primary serving its keys' slot.
    public struct Cluster: Sendable, Hashable {
        /// Nodes to read the first slot map from (any node of the cluster will do; several
        /// in case one is down). Empty: `host:port` of the configuration.
        public var seeds: [RedisEndpoint]
        /// MOVED/ASK/TRYAGAIN hops one command may take before it fails as unavailable.
        public var maxRedirects: Int
        /// Shortest pause between two slot-map refreshes, however many commands ask for one.
        public var minimumRefreshInterval: Duration

        public init(seeds: [RedisEndpoint] = [], maxRedirects: Int = 5, minimumRefreshInterval: Duration = .milliseconds(100)) {
            self.seeds = seeds
            self.maxRedirects = max(1, maxRedirects)
            self.minimumRefreshInterval = minimumRefreshInterval
        }
    }

    public init(
        host: String = "127.0.0.1", port: Int = 6379, username: String? = nil, password: String? = nil, database: Int = 0,
        poolSize: Int = 4, commandTimeout: Duration = .milliseconds(500), connectTimeout: Duration = .seconds(2),
        reconnectBackoff: ReconnectBackoff = ReconnectBackoff(initial: .milliseconds(50), maximum: .seconds(2), jitter: 0.5),
        tls: TLS? = nil, cluster: Cluster? = nil
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
        self.tls = tls
        self.cluster = cluster
    }

    /// The nodes a cluster client asks first for the slot map.
    var clusterSeeds: [RedisEndpoint] {
        guard let cluster, !cluster.seeds.isEmpty else { return [RedisEndpoint(host: host, port: port)] }
        return cluster.seeds
    }

    /// Checks what can be checked without a server: a cluster uses database 0, a client
    /// certificate comes with its key, and the TLS files exist and parse. Call it where
    /// configuration is loaded, to fail at start-up rather than on the first connection.
    public func validate() throws(RedisConfigurationError) {
        if cluster != nil, database != 0 {
            throw RedisConfigurationError("a Redis Cluster has only database 0; remove the database (/\(database)) from the URL")
        }
        if let tls {
            do {
                _ = try RedisTLSContext(tls)
            } catch {
                throw RedisConfigurationError(error.message)
            }
        }
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.host == rhs.host && lhs.port == rhs.port && lhs.username == rhs.username && lhs.password == rhs.password
            && lhs.database == rhs.database && lhs.poolSize == rhs.poolSize && lhs.commandTimeout == rhs.commandTimeout
            && lhs.connectTimeout == rhs.connectTimeout && lhs.reconnectBackoff == rhs.reconnectBackoff && lhs.tls == rhs.tls
            && lhs.cluster == rhs.cluster
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(host)
        hasher.combine(port)
        hasher.combine(database)
        hasher.combine(tls)
        hasher.combine(cluster)
    }
}

/// Printed and reflected without the password, so a configuration in a log line, a `dump`
/// or a failed test's output does not leak it.
extension RedisConfiguration: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        var parts = ["\(tls == nil ? "redis" : "rediss")://\(username.map { "\($0)@" } ?? "")\(host):\(port)/\(database)"]
        if password != nil { parts.append("password: ***") }
        if cluster != nil { parts.append("cluster seeds: \(clusterSeeds.map(\.description).joined(separator: ","))") }
        if let tls { parts.append("tls: \(tls)") }
        parts.append("pool: \(poolSize)")
        return "RedisConfiguration(\(parts.joined(separator: ", ")))"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "host": host, "port": port, "username": username as Any, "password": password == nil ? "none" : "<redacted>",
                "database": database, "poolSize": poolSize, "tls": tls as Any, "cluster": cluster as Any,
            ], displayStyle: .struct)
    }
}

public struct RedisConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    public let message: String
    init(_ message: String) { self.message = message }
    public var description: String { message }
}
