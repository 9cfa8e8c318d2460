import BraidConfig
import BraidCore
import BraidRedis

extension BraidConfiguration.RedisSection {
    /// The client configuration this section describes.
    public func clientConfiguration() throws(ConfigurationError) -> RedisConfiguration {
        do {
            return try RedisConfiguration(url: url, poolSize: poolSize, commandTimeout: .milliseconds(commandTimeoutMs))
        } catch {
            throw ConfigurationError(message: "redis.url: \(error)")
        }
    }

    public var cacheKeys: CacheKeys { CacheKeys(prefix: keyPrefix) }
}
