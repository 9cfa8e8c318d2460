/// What the harness could not do, said so that a person can act on it.
public enum HarnessError: Error, Sendable, CustomStringConvertible {
    /// exec or fork failed.
    case cannotStart(String, reason: String)
    /// A process exited while the harness waited for it to become ready.
    case exitedDuringStart(String, log: String?)
    /// A process did not become ready in time.
    case notReady(String, within: Duration, log: String?)
    /// A port the caller asked for is taken by something that is not ours.
    case portInUse(Int, for: String)
    /// A tool the harness needs is not installed.
    case missingTool(String, hint: String)
    /// A command the harness ran (redis-cli, openssl, tansu …) failed.
    case commandFailed(String, status: Int32, output: String)
    /// Anything else, in words.
    case failed(String)

    public var description: String {
        switch self {
        case .cannotStart(let executable, let reason):
            "cannot start \(executable): \(reason)"
        case .exitedDuringStart(let what, let log):
            "\(what) exited during start-up\(Self.see(log))"
        case .notReady(let what, let timeout, let log):
            "\(what) did not become ready within \(timeout)\(Self.see(log))"
        case .portInUse(let port, let what):
            "port \(port) (for \(what)) is already in use on 127.0.0.1 by a process this harness did not start; "
                + "stop whatever listens there or choose another port (see README: make run)"
        case .missingTool(let tool, let hint):
            "\(tool) is not installed; \(hint)"
        case .commandFailed(let command, let status, let output):
            "`\(command)` failed with status \(status)\(output.isEmpty ? "" : ": \(output.suffix(2_000))")"
        case .failed(let message):
            message
        }
    }

    private static func see(_ log: String?) -> String {
        guard let log else { return "" }
        return "; see its log \(log)"
    }
}
