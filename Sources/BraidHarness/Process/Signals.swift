import Dispatch
import Foundation

/// SIGINT and SIGTERM as an async sequence, so a command can stop its children in order
/// instead of dying with them half-stopped.
public enum Signals {
    /// Starts catching `signals` (their default action, ending the process, is disabled).
    public static func stream(_ signals: [Int32] = [SIGINT, SIGTERM]) -> AsyncStream<Int32> {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        var sources: [any DispatchSourceSignal] = []
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            sources.append(source)
        }
        let keep = SourceBox(sources)
        continuation.onTermination = { _ in keep.cancel() }
        return stream
    }

    private final class SourceBox: @unchecked Sendable {
        let sources: [any DispatchSourceSignal]
        init(_ sources: [any DispatchSourceSignal]) { self.sources = sources }
        func cancel() { sources.forEach { $0.cancel() } }
    }
}
