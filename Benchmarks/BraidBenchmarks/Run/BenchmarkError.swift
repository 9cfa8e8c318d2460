/// Why a benchmark run stopped: a check that failed, a tool that failed, or bad settings.
/// The message says what was expected and what happened.
public struct BenchmarkError: Error, Sendable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
