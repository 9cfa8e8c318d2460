extension BraidConfiguration {
    func validateConsole() throws(ConfigurationError) {
        guard console.enabled else { return }
        guard (500...3_600_000).contains(console.sampleIntervalMs) else {
            throw ConfigurationError(message: "console.sample_interval_ms must be 500-3600000")
        }
        guard (2...100_000).contains(console.samples) else { throw ConfigurationError(message: "console.samples must be 2-100000") }
        if !console.token.isEmpty, console.token.count < 16 {
            throw ConfigurationError(message: "console.token must be at least 16 characters")
        }
    }

    /// The console shows documents, experiments and the workers' state: without a token the
    /// gateway may serve it only on loopback, so a production gateway cannot expose it by
    /// accident. Checked by the gateway only (workers read the same file and serve no console).
    public func validateConsoleExposure() throws(ConfigurationError) {
        if console.enabled, console.token.isEmpty, !Self.isLoopback(gateway.host) {
            throw ConfigurationError(
                message: "console.enabled with gateway.host \(gateway.host) needs console.token "
                    + "(BRAID_CONSOLE_TOKEN or BRAID_CONSOLE_TOKEN_FILE), or console.enabled: false")
        }
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
