import Foundation

/// The read end of a named pipe that a child writes its output to, counted on a thread of its
/// own as it arrives: lines of a given length, when the first line came and when the output
/// ended. What a reader at the end of a shell pipe sees, without a shell.
final class FIFOLineCounter: Sendable {
    struct Count: Sendable {
        /// Lines of exactly the expected length (other lines, e.g. a warning, are not counted).
        var lines: Int
        var first: ContinuousClock.Instant?
        var end: ContinuousClock.Instant
    }

    let url: URL
    private let descriptor: Int32

    /// Makes the pipe at `url` and opens its read end (without waiting for a writer; a
    /// child then opens the write end as its log without blocking).
    init(at url: URL) throws {
        guard mkfifo(url.path, 0o600) == 0 else {
            throw BenchmarkError("mkfifo \(url.path): \(String(cString: strerror(errno)))")
        }
        let descriptor = open(url.path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw BenchmarkError("open \(url.path): \(String(cString: strerror(errno)))") }
        self.url = url
        self.descriptor = descriptor
    }

    /// Counts lines of `length` bytes (without the line break) until every writer has closed
    /// the pipe. Call it once a writer has opened it: before that, a read would see the end.
    func count(lineLength length: Int) async -> Count {
        let descriptor = self.descriptor
        // Blocking reads from here on, on a thread of its own (not the cooperative pool).
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        return await withCheckedContinuation { continuation in
            let thread = Thread {
                var lines = 0
                var current = 0
                var first: ContinuousClock.Instant?
                var buffer = [UInt8](repeating: 0, count: 1 << 16)
                while true {
                    let n = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                    if n < 0, errno == EINTR { continue }
                    if n <= 0 { break }
                    // memchr finds the line breaks: the reader must keep up with kcat.
                    buffer.withUnsafeBytes { bytes in
                        var start = bytes.baseAddress!
                        let end = start + n
                        while let newline = memchr(start, Int32(UInt8(ascii: "\n")), end - start) {
                            if first == nil { first = .now }
                            if current + (UnsafeRawPointer(newline) - start) == length { lines += 1 }
                            current = 0
                            start = UnsafeRawPointer(newline) + 1
                        }
                        current += end - start
                    }
                }
                continuation.resume(returning: Count(lines: lines, first: first, end: .now))
            }
            thread.name = "braid-bench-fifo"
            thread.start()
        }
    }

    deinit {
        close(descriptor)
        try? FileManager.default.removeItem(at: url)
    }
}
