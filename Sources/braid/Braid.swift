import ArgumentParser
import Foundation

/// The one Braid command line: every service and tool is a subcommand.
@main
struct Braid: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "braid",
        abstract: "Serve app pages that mix live search results with precomputed content.",
        subcommands: [
            VersionCommand.self,
            PlanCommand.self,
            GatewayCommand.self,
            WorkerCommand.self,
            PublishCommand.self,
            OpsCommand.self,
            SeedCommand.self,
            ExperimentCommand.self,
        ]
    )

    /// Usage errors exit with status 2, the Unix convention scripts expect (ArgumentParser
    /// would use 64); everything else keeps ArgumentParser's behaviour.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { print(message) }
                Foundation.exit(0)
            }
            if !message.isEmpty { FileHandle.standardError.write(Data((message + "\n").utf8)) }
            Foundation.exit(code == .validationFailure ? 2 : code.rawValue)
        }
    }
}
