import BraidConfig
import Foundation
import Testing

/// Fail closed: a service that binds beyond loopback refuses to start on a weak secret or a
/// development-only setting, naming the key and never the value; on loopback alone the
/// defaults of `make run` stay allowed.
@Suite("exposure: secrets that fail closed")
struct ExposureTests {
    static func strong() -> String {
        Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
    }

    /// Every secret of the gateway strong, identity from JWTs, on 0.0.0.0.
    static func production() -> [String: String] {
        [
            "BRAID_GATEWAY_HOST": "0.0.0.0", "BRAID_WORKER_METRICS_HOST": "0.0.0.0",
            "BRAID_GATEWAY_CURSOR_KEY": strong(), "BRAID_GATEWAY_IMPRESSION_KEY": strong(), "BRAID_CONSOLE_TOKEN": strong(),
            "BRAID_ADMIN_TOKEN": strong(), "BRAID_IDENTITY_MODE": "jwt", "BRAID_IDENTITY_JWT_ISSUER": "https://id.example.test/",
            "BRAID_IDENTITY_JWT_AUDIENCE": "braid", "BRAID_IDENTITY_JWT_JWKS_URL": "https://id.example.test/jwks.json",
        ]
    }

    static func refusal(_ environment: [String: String], role: ServiceRole = .gateway) throws -> String {
        let configuration = try ConfigurationLoader.load(file: nil, environment: environment)
        try configuration.validate()
        let error = #expect(throws: ConfigurationError.self) { try configuration.validateExposure(of: role) }
        for (name, value) in environment where name.hasSuffix("_KEY") || name.hasSuffix("_TOKEN") || name.hasSuffix("_SECRET") {
            #expect(error?.message.contains(value) == false, "\(name)'s value is in the error")
        }
        return error?.message ?? ""
    }

    @Test func onLoopbackTheDevelopmentDefaultsOfMakeRunAreAllowed() throws {
        let configuration = try ConfigurationLoader.load(file: nil, environment: [:])
        try configuration.validate()
        let gateway = try configuration.validateExposure(of: .gateway)
        #expect(gateway.map(\.key) == ["gateway.host"] && gateway.allSatisfy(\.isLoopback))
        #expect(try configuration.validateExposure(of: .worker).map(\.address) == ["127.0.0.1"])
        // A name is loopback when what it resolves to is.
        let named = try ConfigurationLoader.load(file: nil, environment: ["BRAID_GATEWAY_HOST": "localhost"])
        let resolved = try named.validateExposure(of: .gateway)
        #expect(resolved.allSatisfy { $0.isLoopback && ["127.0.0.1", "::1"].contains($0.address) }, "\(resolved)")
    }

    @Test func beyondLoopbackEveryWeakSecretAndQueryIdentityIsNamed() throws {
        let message = try Self.refusal(["BRAID_GATEWAY_HOST": "0.0.0.0"])
        #expect(message.contains("gateway.host 0.0.0.0 is not loopback"), "\(message)")
        for expected in [
            "gateway.cursor_key is a published development key", "gateway.impression_key is a published development key",
            "console.token is not set (set BRAID_CONSOLE_TOKEN or BRAID_CONSOLE_TOKEN_FILE)", "admin.token is not set",
            "identity.mode is query",
        ] {
            #expect(message.contains(expected), "\(expected) missing from: \(message)")
        }
        try ConfigurationLoader.load(file: nil, environment: Self.production()).validateExposure(of: .gateway)
    }

    @Test func placeholderShortUnencodedAndDuplicateKeysAreRefusedByName() throws {
        let shared = Self.strong()
        let cases: [(String, String, String)] = [
            ("BRAID_GATEWAY_CURSOR_KEY", "CHANGE-ME-openssl-rand-base64-48", "gateway.cursor_key is a published development key or a placeholder"),
            ("BRAID_CONSOLE_TOKEN", "bm90IGVub3VnaCBieXRlcyBoZXJl", "console.token holds 21 bytes once decoded"),
            ("BRAID_ADMIN_TOKEN", String(repeating: "ab", count: 31), "admin.token holds 31 bytes once decoded"),
            ("BRAID_GATEWAY_IMPRESSION_KEY", "a passphrase with spaces that is long enough!", "gateway.impression_key is neither hex nor base64"),
        ]
        for (variable, value, expected) in cases {
            let message = try Self.refusal(Self.production().merging([variable: value]) { $1 })
            #expect(message.contains(expected), "\(variable): \(message)")
        }
        let duplicate = try Self.refusal(Self.production().merging(["BRAID_ADMIN_TOKEN": shared, "BRAID_GATEWAY_IMPRESSION_KEY": shared]) { $1 })
        #expect(duplicate.contains("admin.token is the same secret as gateway.impression_key"), "\(duplicate)")
        // The same bytes written in hex are the same secret.
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255) }
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        let rotated = try Self.refusal(Self.production().merging([
            "BRAID_GATEWAY_CURSOR_KEY": Data(bytes).base64EncodedString(), "BRAID_GATEWAY_PREVIOUS_IMPRESSION_KEY": hex,
            "BRAID_GATEWAY_PREVIOUS_CURSOR_KEY_UNTIL": "2030-01-01T00:00:00Z",
        ]) { $1 })
        #expect(rotated.contains("gateway.previous_impression_key is the same secret as gateway.cursor_key"), "\(rotated)")
        let weakPrevious = try Self.refusal(Self.production().merging([
            "BRAID_GATEWAY_PREVIOUS_CURSOR_KEY": "braid-local-development-key", "BRAID_GATEWAY_PREVIOUS_CURSOR_KEY_UNTIL": "2030-01-01T00:00:00Z",
        ]) { $1 })
        #expect(weakPrevious.contains("gateway.previous_cursor_key is a published development key"), "\(weakPrevious)")
    }

    @Test func proxyIdentityNeedsAStrongSharedSecret() throws {
        var environment = Self.production()
        environment["BRAID_IDENTITY_MODE"] = "proxy"
        environment["BRAID_IDENTITY_PROXY_SECRET"] = "short-but-16-chars"
        #expect(try Self.refusal(environment).contains("identity.proxy.secret holds"))
        environment["BRAID_IDENTITY_PROXY_SECRET"] = Self.strong()
        try ConfigurationLoader.load(file: nil, environment: environment).validateExposure(of: .gateway)
    }

    /// "Loopback" is what the name resolves to, not how it is spelled.
    @Test func loopbackIsDecidedAfterResolution() throws {
        let configuration = try ConfigurationLoader.load(file: nil, environment: ["BRAID_GATEWAY_HOST": "127.attacker.example"])
        let resolver: (String) throws(ConfigurationError) -> [String] = { host in host == "127.attacker.example" ? ["203.0.113.9"] : [host] }
        let error = #expect(throws: ConfigurationError.self) { try configuration.validateExposure(of: .gateway, resolve: resolver) }
        #expect(error?.message.contains("gateway.host 127.attacker.example is not loopback") == true, "\(String(describing: error))")
        // A name that resolves to loopback and to something else is not loopback either.
        let mixed: (String) throws(ConfigurationError) -> [String] = { _ in ["127.0.0.1", "192.0.2.10"] }
        #expect(throws: ConfigurationError.self) { try configuration.validateExposure(of: .gateway, resolve: mixed) }
        // The listener binds the address that was checked.
        let bound = try ConfigurationLoader.load(file: nil, environment: ["BRAID_GATEWAY_HOST": "loopback.example"])
            .validateExposure(of: .gateway, resolve: { _ throws(ConfigurationError) in ["127.0.0.2"] })
        #expect(bound.first?.address == "127.0.0.2" && bound.first?.isLoopback == true)
        for (address, loopback) in [("127.0.0.1", true), ("127.255.0.3", true), ("::1", true), ("::ffff:127.0.0.1", true), ("0.0.0.0", false), ("::", false), ("10.0.0.1", false), ("::ffff:10.0.0.1", false)] {
            #expect(ListenAddress.isLoopback(address) == loopback, "\(address)")
        }
    }

    @Test func aSeparateAdminListenerIsCheckedToo() throws {
        var environment = Self.production()
        environment["BRAID_GATEWAY_HOST"] = "127.0.0.1"
        environment["BRAID_GATEWAY_ADMIN_HOST"] = "0.0.0.0"
        environment["BRAID_ADMIN_TOKEN"] = ""
        let message = try Self.refusal(environment)
        #expect(message.contains("gateway.admin_host 0.0.0.0 is not loopback") && message.contains("admin.token is not set"), "\(message)")
        let listeners = try ConfigurationLoader.load(file: nil, environment: Self.production().merging(["BRAID_GATEWAY_ADMIN_HOST": "127.0.0.1"]) { $1 })
            .validateExposure(of: .gateway)
        #expect(listeners.map(\.key) == ["gateway.host", "gateway.admin_host"] && listeners.map(\.port) == [8080, 9465])
    }

    @Test func aWorkerWhoseMetricsListenBeyondLoopbackNeedsTheAdminToken() throws {
        let message = try Self.refusal(["BRAID_WORKER_METRICS_HOST": "0.0.0.0"], role: .worker)
        #expect(message.contains("refusing to start the worker: worker.metrics_host 0.0.0.0") && message.contains("admin.token is not set"), "\(message)")
        #expect(!message.contains("cursor_key"), "a worker signs no cursors")
        try ConfigurationLoader.load(file: nil, environment: ["BRAID_WORKER_METRICS_HOST": "0.0.0.0", "BRAID_ADMIN_TOKEN": Self.strong()])
            .validateExposure(of: .worker)
    }

    @Test func secretsAreReadAsHexOrBase64() {
        #expect(SecretStrength.problem(String(repeating: "0f", count: 32)) == nil)
        #expect(SecretStrength.problem(Data(repeating: 7, count: 32).base64EncodedString()) == nil, "standard base64, padded")
        #expect(SecretStrength.problem(String(repeating: "A-_b", count: 11)) == nil, "base64url, 44 characters")
        #expect(SecretStrength.decoded("QUJD") == Array("ABC".utf8))
        #expect(SecretStrength.decoded("abcd") == [0xAB, 0xCD], "hex when it is hex")
        #expect(SecretStrength.decoded("AAA=")?.count == 2)
        #expect(SecretStrength.decoded("A") == nil && SecretStrength.decoded("AA=A") == nil)
        #expect(SecretStrength.problem("") == .missing && SecretStrength.problem("  \n") == .missing)
        for placeholder in ["CHANGE-ME", "change-me-kafka-scram-password", "<openssl rand -base64 32>", "braid-local-development-key"] {
            #expect(SecretStrength.problem(placeholder) == .denied, "\(placeholder)")
        }
    }

    /// make run's exemption of loopback callers is a development setting: refused beyond loopback.
    @Test func exemptingLoopbackCallersIsRefusedBeyondLoopback() throws {
        var environment = Self.production()
        environment["BRAID_GATEWAY_RATE_LIMITS_EXEMPT_LOOPBACK"] = "true"
        #expect(try Self.refusal(environment).contains("gateway.rate_limits.exempt_loopback is on"))
        let local = try ConfigurationLoader.load(file: nil, environment: ["BRAID_GATEWAY_RATE_LIMITS_EXEMPT_LOOPBACK": "true"])
        _ = try local.validateExposure(of: .gateway)
    }

    /// A file shared by gateways and workers in jwt (or proxy) mode: only the gateway verifies
    /// tokens, so only the gateway needs the JWT key or the proxy secret; the worker and the
    /// tools start without them.
    @Test func onlyTheGatewayNeedsTheIdentityKeys() throws {
        for mode in ["jwt", "proxy"] {
            let shared = try ConfigurationLoader.load(file: nil, environment: ["BRAID_IDENTITY_MODE": mode])
            let refused = #expect(throws: ConfigurationError.self, "\(mode)") { try shared.validate(for: .gateway) }
            #expect(refused?.message.contains("identity.mode \(mode) needs") == true, "\(String(describing: refused))")
            try shared.validate(for: .worker)
            try shared.validate(for: .tool)
        }
    }
}
