import BraidConfig
import Foundation
import Testing

/// `console.*`: on by default on loopback; beyond loopback the gateway needs a token.
@Suite("console configuration")
struct ConsoleConfigurationTests {
    @Test func onByDefaultOnLoopbackWithoutAToken() throws {
        let configuration = try ConfigurationLoader.load(file: nil, environment: [:])
        #expect(configuration.console.enabled)
        #expect(configuration.console.token.isEmpty)
        #expect(configuration.console.sampleIntervalMs == 5_000 && configuration.console.samples == 720)
        try configuration.validate()
        try configuration.validateConsoleExposure()
    }

    @Test func beyondLoopbackTheGatewayNeedsATokenOrNoConsole() throws {
        let open = try ConfigurationLoader.load(file: nil, environment: ["BRAID_GATEWAY_HOST": "0.0.0.0"])
        try open.validate()  // a worker reading the same file is fine
        let refused = #expect(throws: ConfigurationError.self) { try open.validateConsoleExposure() }
        #expect(refused?.message.contains("console.token") == true)
        try ConfigurationLoader.load(file: nil, environment: ["BRAID_GATEWAY_HOST": "0.0.0.0", "BRAID_CONSOLE_TOKEN": "a-token-of-20-chars!"])
            .validateConsoleExposure()
        try ConfigurationLoader.load(file: nil, environment: ["BRAID_GATEWAY_HOST": "0.0.0.0", "BRAID_CONSOLE_ENABLED": "false"])
            .validateConsoleExposure()
    }

    @Test func shortTokensAndOutOfRangeSamplingAreRefused() throws {
        for environment in [["BRAID_CONSOLE_TOKEN": "short"], ["BRAID_CONSOLE_SAMPLE_INTERVAL_MS": "10"], ["BRAID_CONSOLE_SAMPLES": "1"]] {
            let configuration = try ConfigurationLoader.load(file: nil, environment: environment)
            #expect(throws: ConfigurationError.self, "\(environment)") { try configuration.validate() }
        }
    }
}
