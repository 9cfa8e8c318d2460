#if canImport(Glibc)
import Glibc
#endif
import Logging
import ServiceLifecycle

/// Hands the allocator's wholly free pages back to the system every `interval`: glibc's
/// `malloc_trim(0)`, looked up at run time (Glibc's module map leaves out `malloc.h`); a no-op
/// where the C library has none.
///
/// glibc keeps what a thread frees inside its arena for reuse, so resident memory stays at
/// the high-water mark of every burst (a near-cache's turnover, a dictionary that doubled):
/// in a soak the gateway's grew for minutes after its caches were full while the bytes in use
/// stayed flat (BENCHMARKS.md, soak). Trimmed, resident memory follows what is in use, and a
/// leak is what makes it grow. A trim walks every arena under its lock, so it is not run more
/// often than a few times a minute by default.
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
                _ = Self.trim?(0)
            }
        }
        logger.debug("memory trimmer stopped")
    }

    /// `int malloc_trim(size_t pad)`, or nil without it.
    static let trim: (@convention(c) (Int) -> Int32)? = {
        #if canImport(Glibc)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        #else
        return nil
        #endif
    }()
}
