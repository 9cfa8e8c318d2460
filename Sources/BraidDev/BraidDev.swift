import ArgumentParser
import Foundation

/// `braid-dev`: the developer's front door to the local stack, behind `make test`, `make faults`,
/// `make bench`, `make browser`, `make fuzz` and `make attack` (`make run` has `braid-local`). Not
/// part of the product: the release ships `braid` alone.
@main
struct BraidDev: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "braid-dev",
        abstract: "Test, fault-inject and benchmark Braid on local stacks it starts and stops.",
        subcommands: [
            TestCommand.self, FaultsCommand.self, BenchCommand.self, BrowserCommand.self, FuzzCommand.self,
            AttackCommand.self, ImageCheckCommand.self, ExamplesCommand.self, DocsCommand.self,
        ])
}

/// Lines the harness prints about what it does, on stderr, each prefixed with its scope
/// (`run: …`).
enum Say {
    static func line(_ scope: String, _ message: String) {
        FileHandle.standardError.write(Data("\(scope): \(message)\n".utf8))
    }
}
