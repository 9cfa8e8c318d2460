import Foundation

extension RedisConfiguration {
    /// Parses `redis://[user[:password]@]host[:port][/db]` (a password alone:
    /// `redis://:secret@host`); `rediss://` is the same over TLS with the default ``TLS``
    /// settings (system trust roots, server name verified), which the caller may refine.
    public init(url: String, poolSize: Int = 4, commandTimeout: Duration = .milliseconds(500)) throws(RedisConfigurationError) {
        let parsed = try ParsedURL(url)
        self.init(
            host: parsed.endpoint.host, port: parsed.endpoint.port, username: parsed.username, password: parsed.password,
            database: parsed.database, poolSize: poolSize, commandTimeout: commandTimeout, tls: parsed.tls ? TLS() : nil)
    }

    /// A cluster configuration from the URLs of some of its nodes (the seeds). They must
    /// agree on the scheme and credentials and name no database other than 0.
    public init(clusterURLs urls: [String], poolSize: Int = 4, commandTimeout: Duration = .milliseconds(500))
        throws(RedisConfigurationError)
    {
        guard let firstURL = urls.first else { throw RedisConfigurationError("a cluster needs at least one node URL") }
        var parsed: [ParsedURL] = []
        for url in urls { parsed.append(try ParsedURL(url)) }
        let first = parsed[0]
        for (url, other) in zip(urls, parsed).dropFirst()
        where other.tls != first.tls || other.username != first.username || other.password != first.password {
            throw RedisConfigurationError(
                "cluster node '\(redactingPassword(url))' differs from '\(redactingPassword(firstURL))' in scheme or credentials; all nodes share them")
        }
        if let other = parsed.first(where: { $0.database != 0 }) {
            throw RedisConfigurationError("a Redis Cluster has only database 0; remove /\(other.database) from the node URLs")
        }
        self.init(
            host: first.endpoint.host, port: first.endpoint.port, username: first.username, password: first.password,
            poolSize: poolSize, commandTimeout: commandTimeout, tls: first.tls ? TLS() : nil,
            cluster: Cluster(seeds: parsed.map(\.endpoint)))
    }
}

/// The parts of one `redis://` or `rediss://` URL.
private struct ParsedURL {
    var endpoint: RedisEndpoint
    var username: String?
    var password: String?
    var database = 0
    var tls: Bool

    init(_ url: String) throws(RedisConfigurationError) {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else {
            throw RedisConfigurationError("'\(redactingPassword(url))' is not a URL; expected redis://[user[:password]@]host[:port][/db] or rediss://… for TLS")
        }
        guard scheme == "redis" || scheme == "rediss" else {
            throw RedisConfigurationError("unsupported scheme '\(scheme)'; expected redis:// or rediss:// (TLS)")
        }
        guard let host = components.host, !host.isEmpty else { throw RedisConfigurationError("'\(redactingPassword(url))' has no host") }
        let port = components.port ?? 6379
        guard (1...65_535).contains(port) else { throw RedisConfigurationError("port \(port) is out of range") }
        let path = components.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        if !path.isEmpty {
            guard let number = Int(path), number >= 0 else { throw RedisConfigurationError("database '\(path)' is not a number") }
            database = number
        }
        let user = components.user.flatMap { $0.isEmpty ? nil : $0 }?.removingPercentEncoding
        password = components.password?.removingPercentEncoding
        username = password == nil ? nil : user
        if password == nil { password = user }
        endpoint = RedisEndpoint(host: host, port: port)
        tls = scheme == "rediss"
    }
}

/// The URL with whatever stands between `://` and the last `@` of its authority replaced by
/// `***`, for error messages: it may be a password, and the URL may not even parse.
func redactingPassword(_ url: String) -> String {
    guard let schemeEnd = url.range(of: "://") else { return url.contains("@") ? "***" : url }
    let rest = url[schemeEnd.upperBound...]
    let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
    guard let at = authority.lastIndex(of: "@") else { return url }
    return String(url[..<schemeEnd.upperBound]) + "***" + String(url[at...])
}
