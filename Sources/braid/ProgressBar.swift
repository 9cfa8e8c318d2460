import Foundation
import Synchronization

/// Progress on stderr: a redrawn bar on a terminal, a line per quarter in logs and pipes.
final class ProgressBar: Sendable {
    private let interactive = isatty(STDERR_FILENO) == 1
    private let name: String
    /// Last (phase, step) drawn, so output is written only when something visible changes.
    private let last = Mutex<(phase: String, step: Int)>(("", -1))

    init(name: String) {
        self.name = name
    }

    func update(_ phase: String, done: Int, total: Int) {
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 1
        let step = Int(fraction * (interactive ? 40 : 4))
        let changed = last.withLock { last in
            guard last.phase != phase || last.step != step else { return false }
            last = (phase, step)
            return true
        }
        guard changed else { return }
        if interactive {
            let bar = String(repeating: "#", count: step) + String(repeating: " ", count: 40 - step)
            Self.write("\r[\(bar)] \(Int(fraction * 100))% \(phase) \(done)/\(total)   ")
        } else {
            Self.write("\(name): \(phase) \(done)/\(total)\n")
        }
    }

    func finish() {
        if interactive { Self.write("\n") }
    }

    static func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
