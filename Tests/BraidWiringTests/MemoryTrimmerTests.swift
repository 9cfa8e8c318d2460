import Logging
import ServiceLifecycle
import Testing

@testable import BraidWiring

/// The gateway's memory trimmer: it finds the process's allocator (`braid`'s is jemalloc, which
/// `VersionCommandTests` checks; a test process links it too when it links `braid`) and releases
/// through it, and stops with its service group rather than holding the shutdown up.
@Suite("Memory trimmer")
struct MemoryTrimmerTests {
    @Test func theProcesssAllocatorIsFoundAndReleasesFreePages() {
        #expect(Allocator.current != .other)
        var burst: [[UInt8]] = (0..<256).map { _ in [UInt8](repeating: 1, count: 64 << 10) }
        burst.removeAll()
        #expect(Allocator.releaseFreePages())
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
