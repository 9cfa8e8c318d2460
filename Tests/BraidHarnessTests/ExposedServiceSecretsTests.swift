import BraidConfig
import BraidHarness
import BraidTestSupport
import Foundation
import Testing

/// A service the harness starts beyond loopback (a namespace address, a container network)
/// gets what the fail-closed check demands, judged by that check itself; on loopback the
/// development defaults stay.
@Suite("Exposed services get real secrets")
struct ExposedServiceSecretsTests {
    /// An address no interface here has: the check looks at it, nothing binds it.
    static let exposed = "192.0.2.1"

    static func check(_ environment: [String: String], _ role: ServiceRole, file: String? = nil) throws {
        let configuration = try ConfigurationLoader.load(file: file, environment: environment)
        try configuration.validate()
        _ = try configuration.validateExposure(of: role)
    }

    @Test("a gateway or worker beyond loopback passes the fail-closed check only with what the harness adds")
    func exposedServicesPass() throws {
        let cases: [(BraidService.Kind, ServiceRole, String)] = [
            (.gateway, .gateway, "BRAID_GATEWAY_HOST"), (.gateway, .gateway, "BRAID_GATEWAY_ADMIN_HOST"),
            (.worker, .worker, "BRAID_WORKER_METRICS_HOST"),
        ]
        for (kind, role, variable) in cases {
            let given = [variable: Self.exposed]
            #expect(throws: ConfigurationError.self, "\(variable) without secrets is refused") { try Self.check(given, role) }
            let completed = ExposedServiceSecrets.completing(given, for: kind)
            #expect(throws: Never.self, "\(variable)") { try Self.check(completed, role) }
        }
    }

    @Test("the image's configuration file (0.0.0.0) is read from --config")
    func configurationFile() throws {
        let file = RepositoryPaths.root.appendingPathComponent("Deploy/config/braid.yaml").path
        for (kind, role) in [(BraidService.Kind.gateway, ServiceRole.gateway), (.worker, .worker)] {
            let completed = ExposedServiceSecrets.completing([:], for: kind, arguments: ["--config", file])
            #expect(!completed.isEmpty)
            #expect(throws: Never.self) { try Self.check(completed, role, file: file) }
        }
    }

    @Test("on loopback nothing is added; what the caller set is kept")
    func keepsWhatIsGiven() {
        for host in ["127.0.0.1", "127.3.4.5", "localhost", "::1", "[::1]"] {
            let given = ["BRAID_GATEWAY_HOST": host, "BRAID_WORKER_METRICS_HOST": host]
            #expect(ExposedServiceSecrets.completing(given, for: .gateway) == given, "\(host)")
            #expect(ExposedServiceSecrets.completing(given, for: .worker) == given, "\(host)")
        }
        #expect(ExposedServiceSecrets.completing([:], for: .gateway).isEmpty)
        let given = [
            "BRAID_GATEWAY_HOST": "10.201.3.2", "BRAID_ADMIN_TOKEN_FILE": "/run/admin", "BRAID_GATEWAY_CURSOR_KEY": "mine",
            "BRAID_IDENTITY_MODE": "jwt",
        ]
        let completed = ExposedServiceSecrets.completing(given, for: .gateway, random: { "generated" })
        #expect(completed.filter { given[$0.key] == nil } == [
            "BRAID_GATEWAY_IMPRESSION_KEY": "generated", "BRAID_CONSOLE_TOKEN": "generated",
        ])
    }

    @Test("each generated secret is fresh")
    func fresh() {
        let secrets = Set((0..<8).map { _ in ExposedServiceSecrets.random() })
        #expect(secrets.count == 8 && secrets.allSatisfy { $0.count == 64 })
    }
}
