import BraidConfig
import Foundation
import Testing
import BraidCore

/// `console.*`: on by default on loopback; beyond loopback the gateway needs a token.
@Suite("console configuration")
struct ConsoleConfigurationTests {
    @Test func onByDefaultOnLoopbackWithoutAToken() throws {
        let configuration = try ConfigurationLoader.load(file: nil, environment: [:])
        #expect(configuration.console.enabled)
        #expect(configuration.console.token.isEmpty)
        #expect(configuration.console.sampleInterval == .seconds(5) && configuration.console.samples == 720)
        try configuration.validate()
        _ = try configuration.validateExposure(of: .gateway)
    }

    @Test func beyondLoopbackTheGatewayNeedsATokenOrNoConsole() throws {
        let open = try ConfigurationLoader.load(file: nil, environment: ExposureTests.production().merging(["BRAID_CONSOLE_TOKEN": ""]) { $1 })
        try open.validate()
        let refused = #expect(throws: ConfigurationError.self) { try open.validateExposure(of: .gateway) }
        #expect(refused?.message.contains("console.token is not set") == true, "\(String(describing: refused))")
        _ = try open.validateExposure(of: .worker)  // a worker reading the same file serves no console
        _ = try ConfigurationLoader.load(file: nil, environment: ExposureTests.production()).validateExposure(of: .gateway)
        _ = try ConfigurationLoader.load(file: nil, environment: ExposureTests.production().merging(["BRAID_CONSOLE_TOKEN": "", "BRAID_CONSOLE_ENABLED": "false"]) { $1 })
            .validateExposure(of: .gateway)
    }

    @Test func shortTokensAndOutOfRangeSamplingAreRefused() throws {
        for environment in [["BRAID_CONSOLE_TOKEN": "short"], ["BRAID_ADMIN_TOKEN": "short"], ["BRAID_CONSOLE_TOKEN": "the-same-token-1234", "BRAID_ADMIN_TOKEN": "the-same-token-1234"], ["BRAID_CONSOLE_SAMPLE_INTERVAL_MS": "10"], ["BRAID_CONSOLE_SAMPLES": "1"]] {
            let configuration = try ConfigurationLoader.load(file: nil, environment: environment)
            #expect(throws: ConfigurationError.self, "\(environment)") { try configuration.validate() }
        }
    }
}
