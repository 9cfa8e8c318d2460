import BraidConfig
import BraidRedis
import BraidSources
import BraidWiring
import Testing
import BraidCore

@Suite("Secrets reach the clients, and stay out of errors")
struct SecretWiringTests {
    @Test func redisUserAndPasswordReplaceTheURLs() throws {
        var section = BraidConfiguration.RedisSection()
        section.url = "redis://url-user:url-pass@cache.internal:6380/2"
        let fromURL = try section.clientConfiguration()
        #expect(fromURL.username == "url-user" && fromURL.password == "url-pass")
        section.url = "redis://cache.internal:6380/2"
        section.username = "braid"
        section.password = "s3cret"
        let separate = try section.clientConfiguration()
        #expect(separate.username == "braid" && separate.password == "s3cret")
        #expect(separate.host == "cache.internal" && separate.port == 6380 && separate.database == 2)
    }

    @Test func aRefusedRedisURLIsQuotedWithoutItsCredentials() {
        var section = BraidConfiguration.RedisSection()
        for url in ["redis://braid:hunter2@", "redis://hunter2@/", "redis://braid:hunter2@cache:6379/not-a-db", "http://braid:hunter2@cache:6379"] {
            section.url = url
            let error = #expect(throws: ConfigurationError.self) { try section.clientConfiguration() }
            #expect(error?.message.hasPrefix("redis.url: ") == true, "\(String(describing: error))")
            #expect(error?.message.contains("hunter2") == false, "\(String(describing: error))")
        }
        #expect(Redaction.urlCredentials(in: "'redis://a:b@h:1/0' and rediss://only@h") == "'redis://***@h:1/0' and rediss://***@h")
    }

    @Test func elasticsearchCredentialsFollowTheKeysThatAreSet() {
        var section = BraidConfiguration.ElasticsearchSection()
        #expect(section.credentials == nil)
        section.username = "braid"
        section.password = "pa55"
        #expect(section.credentials == .basic(username: "braid", password: "pa55"))
        section.username = nil
        section.apiKey = "k3y"
        #expect(section.credentials == .apiKey("k3y"))
    }
}
