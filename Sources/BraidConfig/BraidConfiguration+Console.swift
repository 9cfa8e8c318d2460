import BraidCore
extension BraidConfiguration {
    func validateConsole() throws(ConfigurationError) {
        guard console.enabled else { return }
        guard (Duration.milliseconds(500) ... .seconds(3_600)).contains(console.sampleInterval) else {
            throw ConfigurationError(message: "console.sample_interval_ms must be 500-3600000")
        }
        guard (2...100_000).contains(console.samples) else { throw ConfigurationError(message: "console.samples must be 2-100000") }
        if !console.token.isEmpty, console.token.text.count < 16 {
            throw ConfigurationError(message: "console.token must be at least 16 characters")
        }
        guard (Duration.seconds(60) ... .seconds(604_800)).contains(console.sessionTtl) else {
            throw ConfigurationError(message: "console.session_ttl_seconds must be 60-604800")
        }
        if !console.token.isEmpty, console.token == admin.token {
            throw ConfigurationError(message: "console.token and admin.token must differ")
        }
    }
}
