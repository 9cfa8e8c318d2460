import ArgumentParser

/// The one Braid command line: every service and tool is a subcommand.
@main
struct Braid: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "braid",
        abstract: "Serve app pages that mix live search results with precomputed content.",
        subcommands: [
            VersionCommand.self,
        ]
    )
}
