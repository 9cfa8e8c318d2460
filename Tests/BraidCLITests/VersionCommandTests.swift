import BraidTestSupport
import Testing

/// `braid version` as a person runs it: the binary says what it is and what it loaded.
@Suite("braid version")
struct VersionCommandTests {
    /// `braid` is linked with jemalloc (Package.swift) so that its every allocation, Swift's and
    /// the C libraries', goes through it; linked without, the binary would run on glibc's.
    @Test func braidRunsOnJemalloc() throws {
        let result = try BraidBinary.run(["version"])
        #expect(result.status == 0, "\(result.stderr)")
        let allocator = result.stdout.split(separator: "\n").first { $0.hasPrefix("allocator ") }
        #expect(allocator?.hasPrefix("allocator jemalloc 5.") == true, "\(result.stdout)")
    }
}
