import ArgumentParser
import BraidConfig
import BraidWiring

/// `--config FILE`: the one configuration file of every service command; `BRAID_*`
/// environment variables override it (README: Configuration).
struct ConfigurationOption: ParsableArguments {
    @Option(name: .customLong("config"), help: "Configuration file (YAML or JSON); BRAID_* variables override it.")
    var file: String?

    /// Loads, validates for `role` and bootstraps logging and metrics: what every command that
    /// reads the configuration does first.
    func loadForService(_ role: ServiceRole = .tool) throws -> BraidConfiguration {
        let configuration = try ConfigurationLoader.load(file: file)
        try configuration.validate(for: role)
        configuration.bootstrapObservability()
        return configuration
    }
}
