import Foundation
import Testing

/// First come, first served: one holder at a time (the integration tier's tests; the
/// compute-heavy tests).
actor OneAtATime {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Runs `body` once no other holder is inside, and says how long it held the place.
    func run(_ body: @Sendable () async throws -> Void) async throws -> Duration {
        if busy {
            await withCheckedContinuation { waiting.append($0) }
        } else {
            busy = true
        }
        defer { release() }
        let start = ContinuousClock.now
        try await body()
        return start.duration(to: .now)
    }

    private func release() {
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}

/// How long each test of a one-at-a-time tier held its place: a line `<seconds>\t<test>` per
/// test in the file `BRAID_TEST_TIMINGS` names (`braid-dev test` sets it and prints the
/// slowest), so a run says where its serial minutes went.
enum TierTimings {
    static let file = ProcessInfo.processInfo.environment["BRAID_TEST_TIMINGS"].flatMap { $0.isEmpty ? nil : $0 }
    private static let lock = NSLock()

    static func record(_ duration: Duration, tier: String, test: Test) {
        guard let file else { return }
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        let name = "\(test.id.moduleName).\(test.displayName ?? test.name)".replacingOccurrences(of: "\t", with: " ")
        let line = String(format: "%.2f\t%@\t%@\n", seconds, tier, name)
        lock.lock()
        defer { lock.unlock() }
        guard let handle = FileHandle(forWritingAtPath: file) ?? { FileManager.default.createFile(atPath: file, contents: nil) ? FileHandle(forWritingAtPath: file) : nil }() else { return }
        handle.seekToEndOfFile()
        handle.write(Data(line.utf8))
        try? handle.close()
    }
}
