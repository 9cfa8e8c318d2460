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
        #expect(configuration.kafka.properties["sasl.username"] != nil)
        #expect(configuration.kafka.properties["sasl.password"] == nil, "the SASL password comes from the environment, not the file")
        #expect(configuration.kafka.properties["ssl.ca.location"] != nil)
        let redis = try #require(URLComponents(string: configuration.redis.url))
        #expect(redis.scheme == "rediss" && redis.password == nil && configuration.redis.username == "braid", "Redis over TLS with an ACL user")
        #expect(configuration.redis.mode == .cluster, "a Redis Cluster")
        #expect(!configuration.redis.tls.caFile.isEmpty && configuration.redis.tls.verifyServerName)
        #expect(configuration.search.source == .elasticsearch)
        #expect(configuration.gateway.cursorKey != BraidConfiguration().gateway.cursorKey)

        // With the systemd environment files on top, as the units start it.
        let environment = try Deploy.environmentFile("Deploy/systemd/braid.env").merging(Deploy.environmentFile("Deploy/systemd/gateway.env")) { $1 }
        let started = try ConfigurationLoader.load(file: file, environment: environment)
        try started.validate()
        try started.validateConsoleExposure()
        #expect(started.console.token == environment["BRAID_CONSOLE_TOKEN"])
        #expect(started.redis.password == environment["BRAID_REDIS_PASSWORD"] && !started.redis.password.isEmpty)
        #expect(started.kafka.properties["sasl.password"] == environment["BRAID_KAFKA_PROPERTY_SASL_PASSWORD"])
        #expect(started.kafka.properties["sasl.password"]?.isEmpty == false)
        #expect(started.gateway.cursorKey == environment["BRAID_GATEWAY_CURSOR_KEY"])
    }
}
