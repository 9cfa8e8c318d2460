import BraidConfig
import BraidRedis
import BraidWiring
import Testing

/// `redis.*` becomes the client's configuration the same way for the gateway, the workers
/// and `braid ops` (all call `clientConfiguration()`).
@Suite("Redis configuration mapping")
struct RedisConfigurationMappingTests {
    @Test func standaloneByDefault() throws {
        let client = try BraidConfiguration.RedisSection().clientConfiguration()
        #expect(client.cluster == nil && client.tls == nil)
        #expect(client.host == "127.0.0.1" && client.port == 6379 && client.poolSize == 4)
    }

    @Test func clusterModeUsesTheURLAsTheSeed() throws {
        var section = BraidConfiguration.RedisSection()
        section.url = "redis://braid:secret@10.0.0.1:7000"
        section.mode = .cluster
        let client = try section.clientConfiguration()
        #expect(client.cluster == RedisConfiguration.Cluster())
        #expect(client.host == "10.0.0.1" && client.port == 7000 && client.username == "braid" && client.password == "secret")
        #expect(!"\(client)".contains("secret") && !String(reflecting: client).contains("secret"), "printed without the password")
    }

    @Test func clusterNodesAreTheSeedsAndMeanClusterMode() throws {
        var section = BraidConfiguration.RedisSection()
        section.clusterNodes = ["redis://10.0.0.1:7000", "redis://10.0.0.2:7001"]
        let client = try section.clientConfiguration()
        #expect(client.cluster?.seeds == [RedisEndpoint(host: "10.0.0.1", port: 7000), RedisEndpoint(host: "10.0.0.2", port: 7001)])
    }

    @Test func tlsSettingsReachTheClient() throws {
        var section = BraidConfiguration.RedisSection()
        section.url = "rediss://cache.internal:6380"
        section.tls.serverName = "redis.example"
        section.tls.verifyServerName = false
        let client = try section.clientConfiguration()
        #expect(client.tls == RedisConfiguration.TLS(serverName: "redis.example", verifyServerName: false))
    }

    @Test func errorsNameTheKeyAndNeverThePassword() throws {
        var section = BraidConfiguration.RedisSection()
        section.url = "rediss://braid:hunter2@cache.internal:6380"
        section.tls.caFile = "/nonexistent/redis-ca.pem"
        let tls = #expect(throws: ConfigurationError.self) { try section.clientConfiguration() }
        #expect(tls?.message.hasPrefix("redis.tls: ") == true && tls?.message.contains("/nonexistent/redis-ca.pem") == true, "\(String(describing: tls))")

        section = BraidConfiguration.RedisSection()
        section.url = "redis://braid:hunter2@"
        let url = #expect(throws: ConfigurationError.self) { try section.clientConfiguration() }
        #expect(url?.message.hasPrefix("redis.url: ") == true, "\(String(describing: url))")

        section.clusterNodes = ["redis://braid:hunter2@10.0.0.1:7000", "rediss://braid:hunter2@10.0.0.2:7000"]
        let nodes = #expect(throws: ConfigurationError.self) { try section.clientConfiguration() }
        #expect(nodes?.message.hasPrefix("redis.cluster_nodes: ") == true, "\(String(describing: nodes))")

        section = BraidConfiguration.RedisSection()
        section.url = "redis://braid:hunter2@10.0.0.1:7000/3"
        section.mode = .cluster
        let database = #expect(throws: ConfigurationError.self) { try section.clientConfiguration() }
        #expect(database?.message.contains("only database 0") == true, "\(String(describing: database))")

        for error in [tls, url, nodes, database] {
            #expect(error?.message.contains("hunter2") == false, "\(String(describing: error))")
        }
    }
}
