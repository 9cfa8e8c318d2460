extension BraidConfiguration {
    /// `tracing.*`: a ratio the sampler accepts, and an endpoint the OTLP/HTTP exporter can
    /// post to, checked even while tracing is off so turning it on cannot fail at start-up.
    func validateTracing() throws(ConfigurationError) {
        guard (0...100).contains(tracing.samplePercent) else {
            throw ConfigurationError(message: "tracing.sample_percent must be 0-100")
        }
        let endpoint = tracing.otlpEndpoint.lowercased()
        guard endpoint.hasPrefix("http://") || endpoint.hasPrefix("https://") else {
            throw ConfigurationError(message: "tracing.otlp_endpoint must be an http:// or https:// URL (the collector's /v1/traces)")
        }
    }

    /// `tracing.service_name`, or `braid-<command>` when it is unset.
    public func tracingServiceName(command: String) -> String {
        tracing.serviceName ?? "braid-\(command)"
    }
}
