import BraidConfig
import BraidCore
import BraidRedis

extension BraidConfiguration.RedisSection {
    /// The client configuration this section describes: the URL, with `username` and
    /// `password` (when set) in place of the URL's own.
    public func clientConfiguration() throws(ConfigurationError) -> RedisConfiguration {
        var configuration: RedisConfiguration
        do {
            configuration = try RedisConfiguration(url: url, poolSize: poolSize, commandTimeout: .milliseconds(commandTimeoutMs))
        } catch {
            // The parser quotes the URL it refuses; its credentials stay out of the message.
            throw ConfigurationError(message: "redis.url: \(Redaction.urlCredentials(in: error.description))")
        }
        if !username.isEmpty { configuration.username = username }
        if !password.isEmpty { configuration.password = password }
        return configuration
    }

    public var cacheKeys: CacheKeys { CacheKeys(prefix: keyPrefix) }
}
