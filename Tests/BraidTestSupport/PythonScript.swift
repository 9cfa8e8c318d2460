import Foundation

/// Runs a Python script with the project virtualenv's interpreter (which has jsonschema and
/// PyYAML), for checks that must use the reference implementations rather than our Swift.
enum PythonScript {
    struct Output {
        var stdout: Data
        var stderr: String
        var status: Int32
    }

    /// Runs `python -c script arguments…` to completion. The script exits on its own, so
    /// Foundation's Process is fine here (unlike for servers that must obey SIGTERM).
    static func run(_ script: String, _ arguments: [String]) throws -> Output {
        let process = Process()
        process.executableURL = RepositoryPaths.python
        process.arguments = ["-c", script] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        do {
            try process.run()
        } catch {
            throw JSONSchemaValidator.Failure(description: "cannot run \(RepositoryPaths.python.path) (run Deploy/local/bootstrap.sh tools): \(error)")
        }
        // stdout first: the scripts print little to stderr, so its pipe cannot fill meanwhile.
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return Output(stdout: data, stderr: errorText, status: process.terminationStatus)
    }
}
