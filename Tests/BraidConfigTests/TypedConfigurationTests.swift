import BraidConfig
import BraidCore
import Foundation
import Testing

/// Times are `Duration`s, unset values optionals, the live source an enum with a section per
/// backend; the keys and variables people already use keep working, and the keys that moved
/// are refused naming where they went.
@Suite("typed configuration")
struct TypedConfigurationTests {

    @Test func timesKeepTheirUnitKeysInFilesAndVariables() throws {
        let path = try temporaryFile("""
            gateway:
              live_timeout_ms: 1500
              cursor_ttl_seconds: 120
            rankings:
              editors:
                profile: relevance
                ttl_seconds: 600
            """)
        let configuration = try ConfigurationLoader.load(
            file: path, environment: ["BRAID_REDIS_COMMAND_TIMEOUT_MS": "250", "BRAID_IDENTITY_JWT_LEEWAY_SECONDS": "30"])
        #expect(configuration.gateway.liveTimeout == .milliseconds(1_500))
        #expect(configuration.gateway.cursorTtl == .seconds(120))
        #expect(configuration.rankings["editors"]?.ttl == .seconds(600))
        #expect(configuration.rankings["editors"]?.refreshAfter == .seconds(3_600), "a ranking's left-out times take the defaults")
        #expect(configuration.redis.commandTimeout == .milliseconds(250))
        #expect(configuration.identity.jwt.leeway == .seconds(30))
    }

    @Test func aFractionalTimeIsRefusedNamingTheKey() throws {
        let path = try temporaryFile("gateway:\n  live_timeout_ms: 1.5\n")
        let error = #expect(throws: ConfigurationError.self) { try ConfigurationLoader.load(file: path, environment: [:]) }
        #expect(error?.message.contains("gateway.live_timeout_ms") == true, "\(error?.message ?? "")")
    }

    @Test func unsetOptionsAreNilAndAnEmptyStringLeavesThemUnset() throws {
        let defaults = try ConfigurationLoader.load(file: nil, environment: [:])
        #expect(defaults.redis.username == nil && defaults.gateway.adminHost == nil && defaults.tracing.serviceName == nil)
        let path = try temporaryFile("redis:\n  username: \"\"\n  tls:\n    server_name: \"\"\n")
        let emptied = try ConfigurationLoader.load(file: path, environment: ["BRAID_GATEWAY_ADMIN_HOST": ""])
        #expect(emptied.redis.username == nil && emptied.redis.tls.serverName == nil && emptied.gateway.adminHost == nil)
        #expect(emptied.redis.tls.isCustomised == false, "an emptied TLS key is not a TLS setting")
        let set = try ConfigurationLoader.load(
            file: nil, environment: ["BRAID_REDIS_USERNAME": "braid", "BRAID_GATEWAY_ADMIN_HOST": "127.0.0.1", "BRAID_COMPONENTS_SQLITE_PATH": "/c.sqlite"])
        #expect(set.redis.username == "braid" && set.gateway.adminHost == "127.0.0.1" && set.components.sqlite.path == "/c.sqlite")
    }

    @Test func theLiveSourceCarriesTheSectionOfItsBackend() throws {
        let path = try temporaryFile("""
            search:
              source: elasticsearch
              elasticsearch:
                url: http://search.internal:9200
                index: dishes
            """)
        let configuration = try ConfigurationLoader.load(file: path, environment: ["BRAID_SEARCH_ELASTICSEARCH_USERNAME": "braid"])
        guard case .elasticsearch(let section) = configuration.search.live else {
            Issue.record("the live source is \(configuration.search.live)")
            return
        }
        #expect(section.url == "http://search.internal:9200" && section.index == "dishes" && section.username == "braid")
        #expect(try ConfigurationLoader.load(file: nil, environment: [:]).search.live == .xapian(.init(), corpus: .init()))
        let sqlite = try ConfigurationLoader.load(file: nil, environment: ["BRAID_SEARCH_SOURCE": "sqlite"])
        #expect(sqlite.search.live == .sqlite(.init()))
    }

    @Test(arguments: [
        ("search:\n  sqlite_path: /x.sqlite\n", "search.sqlite.path"),
        ("search:\n  elasticsearch_url: http://es:9200\n", "search.elasticsearch.url"),
        ("search:\n  http_url: http://rank/\n", "search.http.url"),
    ])
    func aKeyThatMovedIsRefusedNamingItsNewPlace(yaml: String, replacement: String) throws {
        let path = try temporaryFile(yaml)
        let error = #expect(throws: ConfigurationError.self) { try ConfigurationLoader.load(file: path, environment: [:]) }
        #expect(error?.message.contains("'\(replacement)'") == true, "\(error?.message ?? "")")
    }

    @Test func theVariablesOfTheMovedKeysKeepTheirNames() throws {
        let configuration = try ConfigurationLoader.load(
            file: nil,
            environment: ["BRAID_SEARCH_SQLITE_PATH": "/corpus.sqlite", "BRAID_SEARCH_HTTP_URL": "http://rank/", "BRAID_SEARCH_ELASTICSEARCH_API_KEY": "k"])
        #expect(configuration.search.sqlite.path == "/corpus.sqlite")
        #expect(configuration.search.http.url == "http://rank/")
        #expect(configuration.search.elasticsearch.apiKey == "k")
    }
}
