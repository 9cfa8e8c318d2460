#if canImport(Glibc)
import Glibc
#endif

/// The memory allocator this process runs on, found at run time: `braid` is linked with
/// jemalloc (Package.swift), whose `malloc` then serves every allocation of the process,
/// Swift's and the C libraries' alike (so is the test bundle, which links `braid`); the
/// developer tools run on glibc's.
///
/// Why jemalloc: on glibc's allocator, its free pages trimmed every 10 s, the gateway's
/// resident memory rose for minutes after its caches were full under the soak's steady
/// turnover of near-cache entries; on jemalloc it is flat from then on, at a higher level
/// (BENCHMARKS.md, soak). Looked up with `dlsym` rather than imported, so the modules that use
/// it need no jemalloc headers and run on either.
public enum Allocator: Sendable, Equatable {
    /// jemalloc, with the version it reports.
    case jemalloc(version: String)
    /// glibc's malloc.
    case glibc
    /// Neither: returning free pages is not attempted.
    case other

    /// The allocator of this process.
    public static let current: Allocator = {
        if let mallctl = Functions.mallctl {
            var version: UnsafePointer<CChar>?
            var length = MemoryLayout<UnsafePointer<CChar>?>.size
            guard mallctl("version", &version, &length, nil, 0) == 0, let version else { return .jemalloc(version: "unknown") }
            return .jemalloc(version: String(cString: version))
        }
        return Functions.mallocTrim == nil ? .other : .glibc
    }()

    /// What `braid version` prints.
    public var description: String {
        switch self {
        case .jemalloc(let version): "jemalloc \(version)"
        case .glibc: "glibc malloc"
        case .other: "the C library's malloc (neither jemalloc nor glibc)"
        }
    }

    /// Hands the pages the allocator holds but no allocation uses back to the system now:
    /// jemalloc's `arena.<all>.purge`, glibc's `malloc_trim(0)`. Returns whether it could.
    @discardableResult
    public static func releaseFreePages() -> Bool {
        switch current {
        case .jemalloc:
            // MALLCTL_ARENAS_ALL (4096): every arena.
            return Functions.mallctl?("arena.4096.purge", nil, nil, nil, 0) == 0
        case .glibc:
            return Functions.mallocTrim.map { _ = $0(0); return true } ?? false
        case .other:
            return false
        }
    }

    private enum Functions {
        /// `int mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen)`.
        typealias Mallctl = @convention(c) (
            UnsafePointer<CChar>, UnsafeMutableRawPointer?, UnsafeMutablePointer<Int>?, UnsafeMutableRawPointer?, Int
        ) -> Int32

        static let mallctl: Mallctl? = symbol("mallctl", as: Mallctl.self)
        /// `int malloc_trim(size_t pad)`; Glibc's module map leaves out `malloc.h`.
        static let mallocTrim = symbol("malloc_trim", as: (@convention(c) (Int) -> Int32).self)

        private static func symbol<Function>(_ name: String, as type: Function.Type) -> Function? {
            #if canImport(Glibc)
            guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
            return unsafeBitCast(address, to: type)
            #else
            return nil
            #endif
        }
    }
}
