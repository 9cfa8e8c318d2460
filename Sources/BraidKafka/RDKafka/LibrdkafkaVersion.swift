import CRdKafka
import Foundation

/// The librdkafka that is loaded at run time (not the headers it was compiled against).
///
/// Braid compiles against Debian's librdkafka 2.0.2 headers but must run with >= 2.2: 2.0.2
/// skips tagged fields one byte short (librdkafka issue 4253, fixed in 2.2.0), so its
/// ApiVersions handshake fails against KRaft-era brokers with "Local: Read underflow".
public struct LibrdkafkaVersion: Sendable, Comparable, CustomStringConvertible {
    /// `0xMMmmrrxx`, as `rd_kafka_version()` returns it.
    public let hex: Int32
    public let description: String

    /// The oldest librdkafka Braid runs Kafka work with.
    public static let minimum = LibrdkafkaVersion(hex: 0x0202_00ff, description: "2.2.0")

    /// The version of the library this process loaded.
    public static var loaded: LibrdkafkaVersion {
        LibrdkafkaVersion(hex: rd_kafka_version(), description: String(cString: rd_kafka_version_str()))
    }

    /// The file this process mapped librdkafka's code from (`nil` when `/proc/self/maps` cannot be
    /// read or names no file there).
    ///
    /// A release binary must run the copy next to it; `make dist` checks this rather than `ldd`'s
    /// prediction. The kernel names the file with symlinks resolved.
    public static var loadedPath: String? {
        let symbol: @convention(c) () -> Int32 = rd_kafka_version
        let address = UInt(bitPattern: unsafeBitCast(symbol, to: UnsafeRawPointer.self))
        // procfs files report size 0; String(contentsOfFile:) stops after the first read.
        guard let maps = try? FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/maps")).readToEnd()
        else { return nil }
        return ProcessMaps.file(containing: address, in: String(decoding: maps, as: UTF8.self))
    }

    public init(hex: Int32, description: String) {
        self.hex = hex
        self.description = description
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        // Compare major.minor.revision only; the low byte is the pre-release marker.
        (lhs.hex >> 8) < (rhs.hex >> 8)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        (lhs.hex >> 8) == (rhs.hex >> 8)
    }

    /// Throws unless the loaded library is recent enough for Kafka work.
    public static func requireSupported() throws(UnsupportedLibrdkafkaError) {
        let loaded = Self.loaded
        guard loaded >= minimum else { throw UnsupportedLibrdkafkaError(loaded: loaded) }
    }
}

/// The loaded librdkafka is older than ``LibrdkafkaVersion/minimum``.
public struct UnsupportedLibrdkafkaError: Error, CustomStringConvertible {
    public let loaded: LibrdkafkaVersion

    public var description: String {
        """
        librdkafka \(loaded) is loaded, but Braid needs \(LibrdkafkaVersion.minimum) or newer: \
        older versions fail the ApiVersions handshake with current brokers ("Local: Read underflow", \
        librdkafka issue 4253). Run Deploy/local/bootstrap.sh, which installs librdkafka 2.16 into .lib/, \
        and put .lib first on LD_LIBRARY_PATH (the Makefile and Deploy/local scripts do), or install \
        librdkafka >= 2.2 system-wide.
        """
    }
}
