import BraidConfig
import BraidContracts
import BraidCore
import BraidRedis

extension BraidConfiguration.RedisSection {
    /// The client configuration this section describes: one server or a cluster, with the
    /// TLS files read and checked here, so a bad deployment fails at start-up naming the key.
    /// Messages never repeat a URL's credentials. `username` and `password`, when set,
    /// replace the URL's (for every node of a cluster).
    public func clientConfiguration() throws(ConfigurationError) -> RedisConfiguration {
        let timeout = commandTimeout
        var configuration: RedisConfiguration
        do {
            if !clusterNodes.isEmpty {
                configuration = try RedisConfiguration(clusterURLs: clusterNodes, poolSize: poolSize, commandTimeout: timeout)
            } else {
                configuration = try RedisConfiguration(url: url, poolSize: poolSize, commandTimeout: timeout)
                if mode == .cluster { configuration.cluster = .init() }
            }
        } catch {
            let key = clusterNodes.isEmpty ? "redis.url" : "redis.cluster_nodes"
            throw ConfigurationError(message: "\(key): \(Redaction.urlCredentials(in: "\(error)"))")
        }
        if configuration.cluster != nil, configuration.database != 0 {
            throw ConfigurationError(message: "redis.url: a Redis Cluster has only database 0; remove /\(configuration.database) from the URL")
        }
        if let username { configuration.username = username }
        if !password.isEmpty { configuration.password = password.text }
        if configuration.tls != nil {
            configuration.tls = RedisConfiguration.TLS(
                caFile: tls.caFile, certificateFile: tls.certFile, keyFile: tls.keyFile, serverName: tls.serverName,
                verifyServerName: tls.verifyServerName)
        }
        do {
            try configuration.validate()
        } catch {
            throw ConfigurationError(message: "redis.tls: \(error)")
        }
        return configuration
    }

    /// A client of ``clientConfiguration()``; `poolSize` replaces `redis.pool_size` (a one-shot
    /// tool needs one connection per node).
    public func makeClient(poolSize: Int? = nil) throws(ConfigurationError) -> RedisClient {
        var configuration = try clientConfiguration()
        if let poolSize { configuration.poolSize = max(1, poolSize) }
        return RedisClient(configuration: configuration)
    }

    public var cacheKeys: CacheKeys { CacheKeys(prefix: keyPrefix) }
}
