@testable import BraidConfig
import Foundation
import Testing
import Yams

/// The production configuration example loads and validates with the services' own loader, alone
/// and with the systemd environment files on top.
@Suite("production configuration")
struct ProductionConfigurationTests {
    @Test func productionExampleLoadsWithTheServicesLoader() throws {
        let file = Deploy.root.appendingPathComponent("Deploy/config/production.yaml").path
        let configuration = try ConfigurationLoader.load(file: file, environment: [:])
        try configuration.validate()
        #expect(configuration.kafka.properties["security.protocol"] == "SASL_SSL")
        #expect(configuration.kafka.properties["sasl.mechanisms"]?.hasPrefix("SCRAM-SHA-") == true)
        #expect(configuration.kafka.properties["sasl.username"] != nil && configuration.kafka.properties["sasl.password"] != nil)
        #expect(configuration.kafka.properties["ssl.ca.location"] != nil)
        let redis = try #require(URLComponents(string: configuration.redis.url))
        #expect(redis.scheme == "redis" && redis.user != nil && redis.password != nil, "Redis with an ACL user and password")
        #expect(configuration.search.source == .elasticsearch)
        #expect(configuration.gateway.cursorKey != BraidConfiguration().gateway.cursorKey)

        // With the systemd environment files on top, as the units start it.
        let environment = try Deploy.environmentFile("Deploy/systemd/braid.env").merging(Deploy.environmentFile("Deploy/systemd/gateway.env")) { $1 }
        let started = try ConfigurationLoader.load(file: file, environment: environment)
        try started.validate()
        #expect(started.redis.url == environment["BRAID_REDIS_URL"])
        #expect(started.gateway.cursorKey == environment["BRAID_GATEWAY_CURSOR_KEY"])
    }
}
