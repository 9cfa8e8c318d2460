import Foundation

/// A process as the kernel knows it: pid plus start time, so a pid the kernel has since
/// given to another program is never mistaken for the one recorded.
public struct ProcessIdentity: Codable, Sendable, Hashable {
    public var pid: pid_t
    /// Field 22 of /proc/<pid>/stat: clock ticks after boot when it started.
    public var startTicks: UInt64

    public init(pid: pid_t, startTicks: UInt64) {
        self.pid = pid
        self.startTicks = startTicks
    }

    /// This process.
    public static var current: ProcessIdentity? { of(getpid()) }

    /// The identity of a running process, or nil when no process has that pid.
    public static func of(_ pid: pid_t) -> ProcessIdentity? {
        // Read to the end: /proc files report a size of 0, which a size-based read may trust.
        guard let file = FileHandle(forReadingAtPath: "/proc/\(pid)/stat") else { return nil }
        defer { try? file.close() }
        let stat = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
        // The command name (field 2) is in parentheses and may contain spaces: split after it.
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (state); field 22 is fields[19].
        guard fields.count > 19, let ticks = UInt64(fields[19]), fields[0] != "Z" else { return nil }
        return ProcessIdentity(pid: pid, startTicks: ticks)
    }

    /// Whether this very process (same pid, same start) is still running.
    public var isAlive: Bool { Self.of(pid) == self }
}
