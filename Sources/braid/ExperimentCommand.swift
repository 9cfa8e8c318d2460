import ArgumentParser

/// `braid experiment …`: tools for ranking experiments.
struct ExperimentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "experiment",
        abstract: "Ranking experiments: how sensitive team-draft interleaving is compared with an A/B test, planned on your own traffic.",
        subcommands: [ExperimentSimulateCommand.self, ExperimentPlanCommand.self, ExperimentRoundTripCommand.self])
}
