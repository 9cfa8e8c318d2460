import BraidCore
import Foundation

extension BraidConfiguration {
    /// Who may call what, and for how long: the admin listener and token, identity, trusted
    /// proxies, CORS, and the HTTP limits. Checked whatever the listen address (the rules
    /// that depend on it are in ``validateExposure(of:resolve:)``).
    func validateAccess() throws(ConfigurationError) {
        func fail(_ message: String) -> ConfigurationError { ConfigurationError(message: message) }
        guard (0...65_535).contains(gateway.adminPort) else { throw fail("gateway.admin_port must be 0-65535 (0: any free port)") }
        if gateway.adminHost == gateway.host, gateway.adminPort == gateway.port, gateway.port != 0 {
            throw fail("gateway.admin_host:gateway.admin_port is the public listener; pick another port, or leave gateway.admin_host unset")
        }
        if !admin.token.isEmpty, admin.token.text.count < 16 { throw fail("admin.token must be at least 16 characters") }
        for (index, proxy) in gateway.trustedProxies.enumerated() where AddressRange(proxy) == nil {
            throw fail("gateway.trusted_proxies[\(index)] must be an IP address or a CIDR range such as 10.0.0.0/8")
        }
        for (index, origin) in gateway.corsOrigins.enumerated() where !Self.isOrigin(origin) {
            throw fail("gateway.cors_origins[\(index)] must be * or an origin such as https://app.example.com (scheme, host, optional port; no path)")
        }
        guard (Duration.seconds(1) ... .seconds(3_600)).contains(http.idleTimeout) else { throw fail("http.idle_timeout_ms must be 1000-3600000") }
        guard (Duration.milliseconds(100) ... .seconds(600)).contains(http.headerTimeout) else { throw fail("http.header_timeout_ms must be 100-600000") }
        guard (Duration.milliseconds(100) ... .seconds(3_600)).contains(http.bodyTimeout) else { throw fail("http.body_timeout_ms must be 100-3600000") }
        guard (1...1_000_000).contains(http.maxConnections) else { throw fail("http.max_connections must be 1-1000000") }
    }

    /// `identity.*`: what a process that verifies users needs (the gateway). Workers and tools
    /// read the same file but never verify a token, so they do not need its keys.
    func validateIdentity() throws(ConfigurationError) {
        func fail(_ message: String) -> ConfigurationError { ConfigurationError(message: message) }
        switch identity.mode {
        case .query:
            break
        case .jwt:
            let jwt = identity.jwt
            guard jwt.issuer != nil, jwt.audience != nil else {
                throw fail("identity.mode jwt needs identity.jwt.issuer and identity.jwt.audience (both are checked on every token)")
            }
            guard jwt.jwksUrl != nil || jwt.jwksFile != nil || !jwt.hs256Key.isEmpty else {
                throw fail("identity.mode jwt needs keys: identity.jwt.jwks_url, identity.jwt.jwks_file or identity.jwt.hs256_key")
            }
            guard jwt.jwksUrl == nil || jwt.jwksFile == nil else { throw fail("identity.jwt.jwks_url and identity.jwt.jwks_file exclude each other: set one") }
            if let url = jwt.jwksUrl?.lowercased(), !url.hasPrefix("https://"), !url.hasPrefix("http://") {
                throw fail("identity.jwt.jwks_url must be an http:// or https:// URL")
            }
            guard (Duration.zero ... .seconds(600)).contains(jwt.leeway) else { throw fail("identity.jwt.leeway_seconds must be 0-600") }
            guard (Duration.seconds(10) ... .seconds(86_400)).contains(jwt.jwksRefresh) else {
                throw fail("identity.jwt.jwks_refresh_seconds must be 10-86400")
            }
            guard jwt.jwksMaxStale >= jwt.jwksRefresh else {
                throw fail("identity.jwt.jwks_max_stale_seconds must be at least identity.jwt.jwks_refresh_seconds")
            }
        case .proxy:
            let proxy = identity.proxy
            guard !proxy.secret.isEmpty else { throw fail("identity.mode proxy needs identity.proxy.secret (the proxy proves itself with it)") }
            for (key, name) in [("identity.proxy.user_header", proxy.userHeader), ("identity.proxy.secret_header", proxy.secretHeader)] {
                guard Self.isHeaderName(name) else { throw fail("\(key) must be an HTTP header name") }
            }
            guard proxy.userHeader.lowercased() != proxy.secretHeader.lowercased() else {
                throw fail("identity.proxy.user_header and identity.proxy.secret_header must differ")
            }
        }
    }

    static func isOrigin(_ origin: String) -> Bool {
        if origin == "*" { return true }
        guard let url = URLComponents(string: origin), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty, url.path.isEmpty, url.query == nil, url.fragment == nil, url.user == nil
        else { return false }
        return true
    }

    static func isHeaderName(_ name: String) -> Bool {
        !name.isEmpty && name.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_".unicodeScalars.contains($0)) }
    }
}
