import Foundation

/// Waiting for a started process to become ready.
public enum Readiness {
    /// Polls `isReady` until it returns true; fails early when `process` exits, and after
    /// `timeout`. `what` names the process in errors, which point at its log.
    public static func wait(
        for what: String, process: ChildProcess?, timeout: Duration = .seconds(30), interval: Duration = .milliseconds(50),
        _ isReady: () async -> Bool
    ) async throws(HarnessError) {
        let deadline = ContinuousClock.now + timeout
        while true {
            if await isReady() { return }
            if let process, process.hasExited { throw .exitedDuringStart(what, log: process.log?.path) }
            guard ContinuousClock.now < deadline else { throw .notReady(what, within: timeout, log: process?.log?.path) }
            try? await Task.sleep(for: interval)
        }
    }

    /// Whether the file at `url` contains `text` after its first `offset` bytes (what a
    /// process wrote since it started, when logs are appended to across restarts).
    public static func log(_ url: URL?, contains text: String, after offset: Int = 0) -> Bool {
        guard let url, let data = try? Data(contentsOf: url), data.count > offset else { return false }
        return String(decoding: data.dropFirst(offset), as: UTF8.self).contains(text)
    }

    /// The size of the file at `url` now (0 when it does not exist): where a restarted
    /// process's lines will begin.
    public static func logSize(_ url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? Int) ?? 0
    }
}
