import BraidRedis
import BraidTestSupport
import Foundation
import Testing

/// TLS against real TLS-only redis-servers (certificates made by `make test` with openssl):
/// the good cases, and one test per mistake, each expecting its own error.
@Suite("Redis over TLS", .integration)
struct RedisTLSTests {
    /// The shared TLS server's URL with the test CA trusted.
    func configuration(
        url: String? = nil, caFile: String? = "ca.crt", client: String? = nil, serverName: String? = nil, verifyServerName: Bool = true
    ) throws -> RedisConfiguration {
        var configuration = try RedisConfiguration(url: url ?? TestEnvironment.redisTLSURL(), poolSize: 2, commandTimeout: .seconds(2))
        configuration.tls?.caFile = try caFile.map(TestEnvironment.tlsFile)
        if let client {
            configuration.tls?.certificateFile = try TestEnvironment.tlsFile("\(client).crt")
            configuration.tls?.keyFile = try TestEnvironment.tlsFile("\(client).key")
        }
        configuration.tls?.serverName = serverName
        configuration.tls?.verifyServerName = verifyServerName
        return configuration
    }

    /// The error a client of `configuration` reports at start-up.
    ///
    /// TLS mistakes do not heal by waiting, so the client reports them at once instead of
    /// waiting out its timeout; a test proves that by the error's kind (a timed-out wait
    /// throws `.unavailable`, never a `tlsFailure`), not by a stopwatch: beside the fast tier
    /// the handshake and the certificate probe once took more than 8 seconds to get a thread.
    func connectError(_ configuration: RedisConfiguration) async throws -> RedisConnectionError? {
        let error = await #expect(throws: RedisConnectionError.self) {
            try await withRedisClient(configuration: configuration) { _ in }
        }
        #expect(error?.kind == .tls, "\(String(describing: error))")
        return error
    }

    @Test func commandsRunOverTLS() async throws {
        try await withRedisClient(configuration: try configuration()) { redis in
            let key = TestEnvironment.uniqueName("tls")
            try await redis.set(key, to: "ＣＵＲＲＹ over TLS", expiration: .seconds(60))
            #expect(try await redis.getString(key) == "ＣＵＲＲＹ over TLS")
            let script = RedisScript("return redis.call('INCRBY', KEYS[1], ARGV[1])")
            #expect(try await redis.evalsha(script, keys: [key + ":n"], arguments: ["3"]) == .integer(3))
            // Many requests in flight on the two pipelined TLS connections, each with its own answer.
            let wrong = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<2000 {
                    group.addTask {
                        try await redis.set("\(key):\(index)", to: .string("v\(index)"), expiration: .seconds(60))
                        return try await redis.getString("\(key):\(index)") == "v\(index)" ? 0 : 1
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(wrong == 0)
        }
    }

    @Test func verifiesByHostNameWithSNI() async throws {
        let port = try #require(URLComponents(string: try TestEnvironment.redisTLSURL())?.port)
        try await withRedisClient(configuration: try configuration(url: "rediss://localhost:\(port)")) { redis in
            try await redis.ping()
        }
        // An IP address in the URL with the certificate's host name as the server name.
        try await withRedisClient(configuration: try configuration(serverName: "localhost")) { redis in
            try await redis.ping()
        }
    }

    @Test func mutualTLS() async throws {
        try await RedisServerProcess.with(tls: .init(authClients: "yes")) { server in
            try await withRedisClient(configuration: try configuration(url: server.url, client: "client")) { redis in
                try await redis.set("who", to: "client with a certificate")
                #expect(try await redis.getString("who") == "client with a certificate")
            }
            let error = try await connectError(try configuration(url: server.url))
            #expect(error?.tlsFailure == .clientCertificateRequired, "\(String(describing: error))")
            #expect(error?.message.contains("certificate and key files") == true)
        }
    }

    @Test func aClientCertificateFromAnotherCAIsRefused() async throws {
        let error = try await connectError(try configuration(client: "other-client"))
        #expect(error?.tlsFailure == .clientCertificateRejected, "\(String(describing: error))")
        #expect(error?.message.contains("other-client.crt") == true)
    }

    @Test func aWrongCAFile() async throws {
        let error = try await connectError(try configuration(caFile: "other-ca.crt"))
        #expect(error?.tlsFailure == .untrustedCertificate, "\(String(describing: error))")
        #expect(error?.message.contains("issued by O=Braid tests, CN=Braid Test CA") == true)
        #expect(error?.message.contains("other-ca.crt (it holds O=Elsewhere, CN=Other CA)") == true)
        // Without a CA file the system's roots do not know the test CA either.
        let system = try await connectError(try configuration(caFile: nil))
        #expect(system?.tlsFailure == .untrustedCertificate)
        #expect(system?.message.contains("the system's trusted CAs") == true)
    }

    @Test func aSelfSignedServerCertificate() async throws {
        try await RedisServerProcess.with(tls: .init(certificate: "selfsigned")) { server in
            let error = try await connectError(try configuration(url: server.url))
            #expect(error?.tlsFailure == .selfSignedCertificate, "\(String(describing: error))")
            #expect(error?.message.contains("self-signed certificate (CN=localhost)") == true)
        }
    }

    @Test func aCertificateForAnotherName() async throws {
        // A certificate for the name localhost only: NIOSSL also accepts a certificate that
        // names the connected IP address, which the shared server's certificate does.
        try await RedisServerProcess.with(tls: .init(certificate: "server-dns")) { server in
            let byIP = try await connectError(try configuration(url: server.url))
            #expect(byIP?.tlsFailure == .nameMismatch, "\(String(describing: byIP))")
            #expect(byIP?.message.contains("not issued for '127.0.0.1' (it names localhost)") == true)
            let error = try await connectError(try configuration(url: server.url, serverName: "cache.example.com"))
            #expect(error?.tlsFailure == .nameMismatch, "\(String(describing: error))")
            #expect(error?.message.contains("not issued for 'cache.example.com' (it names localhost)") == true)
            // The right name as SNI and for verification, while connecting by IP address.
            try await withRedisClient(configuration: try configuration(url: server.url, serverName: "localhost")) { redis in
                try await redis.ping()
            }
            // With name verification off the chain alone is checked.
            try await withRedisClient(configuration: try configuration(url: server.url, serverName: "cache.example.com", verifyServerName: false)) {
                redis in try await redis.ping()
            }
        }
    }

    @Test func aPlaintextServerOnARedissURL() async throws {
        let (host, port) = try TestEnvironment.redisEndpoint()
        let error = try await connectError(try configuration(url: "rediss://\(host):\(port)"))
        #expect(error?.tlsFailure == .notTLSServer, "\(String(describing: error))")
        #expect(error?.message.contains("is this a plaintext port? use redis://") == true)
    }

    @Test func aTLSServerOnARedisURL() async throws {
        let tlsURL = try TestEnvironment.redisTLSURL()
        let plainURL = "redis://" + tlsURL.dropFirst("rediss://".count)
        let error = try await connectError(try RedisConfiguration(url: plainURL))
        #expect(error?.tlsFailure == .tlsServer, "\(String(describing: error))")
        #expect(error?.message.contains("is this a TLS port? use rediss://") == true)
    }

    @Test func unusableFilesAreConfigurationErrors() async throws {
        var missing = try configuration()
        missing.tls?.caFile = "/nonexistent/ca.pem"
        let invalid = #expect(throws: RedisConfigurationError.self) { try missing.validate() }
        #expect(invalid?.message.contains("/nonexistent/ca.pem") == true)
        let atStart = try await connectError(missing)
        #expect(atStart?.tlsFailure == .invalidConfiguration)

        var keyless = try configuration(client: "client")
        keyless.tls?.keyFile = nil
        #expect(throws: RedisConfigurationError.self) { try keyless.validate() }
        var mismatched = try configuration(client: "client")
        mismatched.tls?.keyFile = try TestEnvironment.tlsFile("other-client.key")
        let mismatch = #expect(throws: RedisConfigurationError.self) { try mismatched.validate() }
        #expect(mismatch?.message.contains("key") == true)
        try configuration(client: "client").validate()
    }
}
