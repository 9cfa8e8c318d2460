@testable import BraidConfig
import BraidCore
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
        #expect(configuration.redis.tls.caFile != nil && configuration.redis.tls.verifyServerName)
        #expect(configuration.search.source == .elasticsearch)
        #expect(configuration.identity.mode == .jwt && configuration.gateway.adminHost == "0.0.0.0")
        #expect(configuration.gateway.cursorKey == Secret(SecretStrength.developmentCursorKey), "no key in the file: secrets come from the environment")
        #expect(configuration.gateway.rateLimits.enabled && !configuration.gateway.rateLimits.exemptLoopback, "limits apply to every caller")

        // With the systemd environment files on top, as the units start it: the placeholders
        // are refused, naming each key and never a value.
        let environment = try Deploy.environmentFile("Deploy/systemd/braid.env").merging(Deploy.environmentFile("Deploy/systemd/gateway.env")) { $1 }
        let shipped = try ConfigurationLoader.load(file: file, environment: environment)
        try shipped.validate()
        #expect(shipped.console.token == Secret(environment["BRAID_CONSOLE_TOKEN"] ?? "-"))
        #expect(shipped.redis.password == Secret(environment["BRAID_REDIS_PASSWORD"] ?? "-") && !shipped.redis.password.isEmpty)
        #expect(shipped.kafka.properties["sasl.password"] == environment["BRAID_KAFKA_PROPERTY_SASL_PASSWORD"])
        #expect(shipped.kafka.properties["sasl.password"]?.isEmpty == false)
        #expect(shipped.gateway.cursorKey == Secret(environment["BRAID_GATEWAY_CURSOR_KEY"] ?? "-"))
        for role in [ServiceRole.gateway, .worker] {
            let refused = #expect(throws: ConfigurationError.self, "\(role)") { try shipped.validateExposure(of: role) }
            let message = refused?.message ?? ""
            let keys = role == .gateway ? ["gateway.cursor_key", "gateway.impression_key", "console.token", "admin.token"] : ["admin.token"]
            for key in keys { #expect(message.contains("\(key) is a published development key or a placeholder"), "\(role): \(message)") }
            for (name, value) in environment where name.hasSuffix("_KEY") || name.hasSuffix("_TOKEN") { #expect(!message.contains(value), "\(name)") }
        }
        // The same with real secrets starts.
        let started = try ConfigurationLoader.load(file: file, environment: environment.merging(Deploy.generatedEnvironment()) { $1 })
        try started.validate()
        #expect(try started.validateExposure(of: .gateway).count == 2)
        _ = try started.validateExposure(of: .worker)
    }

    /// The installed default (the container's own configuration, 0.0.0.0, no key set) serves
    /// nothing until an operator sets the secrets and an identity provider.
    @Test func theInstalledDefaultRefusesToStartUntilConfigured() throws {
        let file = Deploy.root.appendingPathComponent("Deploy/config/braid.yaml").path
        let shipped = try ConfigurationLoader.load(file: file, environment: [:])
        try shipped.validate()
        #expect(shipped.gateway.rateLimits.enabled && !shipped.gateway.rateLimits.exemptLoopback, "limits apply to every caller")
        #expect(BraidConfiguration().gateway.rateLimits.enabled && !BraidConfiguration().gateway.rateLimits.exemptLoopback, "the built-in defaults too")
        let refused = #expect(throws: ConfigurationError.self) { try shipped.validateExposure(of: .gateway) }
        for expected in ["gateway.cursor_key is a published development key", "admin.token is not set", "identity.mode is query"] {
            #expect(refused?.message.contains(expected) == true, "\(String(describing: refused))")
        }
        #expect(throws: ConfigurationError.self) { try shipped.validateExposure(of: .worker) }
        let configured = try ConfigurationLoader.load(
            file: file,
            environment: Deploy.generatedEnvironment().merging([
                "BRAID_IDENTITY_MODE": "jwt", "BRAID_IDENTITY_JWT_ISSUER": "https://id.example.com/", "BRAID_IDENTITY_JWT_AUDIENCE": "braid",
                "BRAID_IDENTITY_JWT_JWKS_URL": "https://id.example.com/jwks.json",
            ]) { $1 })
        try configured.validate()
        _ = try configured.validateExposure(of: .gateway)
        _ = try configured.validateExposure(of: .worker)
    }

    /// Every placeholder the repository ships (in Deploy/ and the README) is on the deny list:
    /// none can pass for a secret.
    @Test func everyShippedPlaceholderIsRefused() throws {
        var files = [Deploy.root.appendingPathComponent("README.md")]
        files += (try? FileManager.default.contentsOfDirectory(at: Deploy.root.appendingPathComponent("docs"), includingPropertiesForKeys: nil)) ?? []
        let enumerator = FileManager.default.enumerator(at: Deploy.root.appendingPathComponent("Deploy"), includingPropertiesForKeys: nil)
        while let file = enumerator?.nextObject() as? URL { files.append(file) }
        let pattern = try NSRegularExpression(pattern: "CHANGE-ME[A-Za-z0-9_-]*", options: [.caseInsensitive])
        var found: Set<String> = []
        for file in files {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                found.insert((text as NSString).substring(with: match.range))
            }
        }
        #expect(found.count >= 5, "\(found)")
        for placeholder in found {
            #expect(SecretStrength.problem(placeholder) == .denied, "\(placeholder)")
            #expect(SecretStrength.problem(placeholder + String(repeating: "A", count: 64)) == .denied, "\(placeholder), padded")
        }
    }
}
