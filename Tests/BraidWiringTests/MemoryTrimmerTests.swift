import Logging
import ServiceLifecycle
import Testing

@testable import BraidWiring

/// The gateway's memory trimmer: it finds glibc's `malloc_trim` (so it trims at all on Linux)
/// and stops with its service group rather than holding the shutdown up.
@Suite("Memory trimmer")
struct MemoryTrimmerTests {
    @Test func glibcsMallocTrimIsFoundAndRuns() throws {
        let trim = try #require(MemoryTrimmer.trim)
        // A burst freed: 1 or 0 is whether any memory was handed back; anything else is not malloc_trim.
        var burst: [[UInt8]] = (0..<256).map { _ in [UInt8](repeating: 1, count: 64 << 10) }
        burst.removeAll()
        #expect([0, 1].contains(trim(0)))
    }

    /// A trimmer that ignored the shutdown would keep its group running until the time limit.
    @Test(.timeLimit(.minutes(1))) func aTrimmerStopsWithItsServiceGroup() async throws {
        let trimmer = MemoryTrimmer(interval: .milliseconds(100), logger: Logger(label: "test.trimmer"))
        let group = ServiceGroup(configuration: .init(services: [trimmer], logger: Logger(label: "test.services")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            try await Task.sleep(for: .milliseconds(350))
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }
}
