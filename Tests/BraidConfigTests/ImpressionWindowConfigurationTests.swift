import BraidConfig
import BraidContracts
import BraidCore
import Testing

/// `gateway.impression_window_seconds`: from the environment, and never as long as the
/// workers' impression state (an old id would count again once that state expired).
@Suite("impression window in the configuration")
struct ImpressionWindowConfigurationTests {
    @Test func theWindowIsADayByDefaultAndMustBeShorterThanTheImpressionState() throws {
        let defaults = try ConfigurationLoader.load(file: nil, environment: [:])
        #expect(defaults.gateway.impressionWindow == .seconds(86_400))
        let set = try ConfigurationLoader.load(file: nil, environment: ["BRAID_GATEWAY_IMPRESSION_WINDOW_SECONDS": "600"])
        #expect(set.gateway.impressionWindow == .seconds(600))
        for refused in [0, ImpressionValidity.maxWindowSeconds + 1, ImpressionValidity.impressionStateTTLSeconds] {
            let configuration = try ConfigurationLoader.load(file: nil, environment: ["BRAID_GATEWAY_IMPRESSION_WINDOW_SECONDS": "\(refused)"])
            let error = #expect(throws: ConfigurationError.self) { try configuration.validate() }
            #expect(error?.message.hasPrefix("gateway.impression_window_seconds must be 1-") == true, "\(refused): \(error?.message ?? "")")
        }
        try defaults.validate()
        try ConfigurationLoader.load(
            file: nil, environment: ["BRAID_GATEWAY_IMPRESSION_WINDOW_SECONDS": "\(ImpressionValidity.maxWindowSeconds)"]
        ).validate()
    }
}
