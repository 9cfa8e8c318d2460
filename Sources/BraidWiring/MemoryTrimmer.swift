import Logging
import ServiceLifecycle

/// Hands the allocator's free pages back to the system every `interval`
/// (``Allocator/releaseFreePages()``: jemalloc's purge of every arena, or glibc's `malloc_trim`).
///
/// An allocator keeps what the process frees for reuse, so resident memory would stay at the
/// high-water mark of every burst (a near-cache's turnover, a dictionary that doubled).
/// Released, resident memory follows what is in use, and a leak is what makes it grow. A
/// release walks every arena under its lock, so it is not run more often than a few times a
/// minute by default.
public struct MemoryTrimmer: Service {
    let interval: Duration
    let logger: Logger

    public init(interval: Duration, logger: Logger) {
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                guard (try? await Task.sleep(for: interval)) != nil else { return }
                Allocator.releaseFreePages()
            }
        }
        logger.debug("memory trimmer stopped")
    }
}
