@testable import BraidKafka
import Foundation
import Testing

/// Which librdkafka file a process runs: `braid version` prints it and `make dist` checks it.
@Suite("loaded librdkafka")
struct LoadedLibraryTests {
    static let maps = """
        55d0c0a00000-55d0c0a3c000 r--p 00000000 fd:01 1048601                    /usr/bin/braid
        7f1a20000000-7f1a20021000 rw-p 00000000 00:00 0
        7f1a2c400000-7f1a2c6f2000 r-xp 00034000 fd:01 2097170                    /srv/my builds/librdkafka.so.1
        7f1a2c6f2000-7f1a2c700000 r--p 00326000 fd:01 2097170                    /srv/my builds/librdkafka.so.1
        7ffd5e5d1000-7ffd5e5f2000 rw-p 00000000 00:00 0                          [stack]
        """

    @Test func findsTheFileWhoseMappingHoldsTheAddress() {
        #expect(ProcessMaps.file(containing: 0x7f1a_2c41_2345, in: Self.maps) == "/srv/my builds/librdkafka.so.1")
        #expect(ProcessMaps.file(containing: 0x55d0_c0a0_0000, in: Self.maps) == "/usr/bin/braid")
        #expect(ProcessMaps.file(containing: 0x7f1a_2c6f_2000, in: Self.maps) == "/srv/my builds/librdkafka.so.1")
        // A range's end is outside it; nothing follows this one.
        #expect(ProcessMaps.file(containing: 0x55d0_c0a3_c000, in: Self.maps) == nil)
    }

    @Test func anonymousAndPseudoMappingsNameNoFile() {
        #expect(ProcessMaps.file(containing: 0x7f1a_2000_0010, in: Self.maps) == nil)
        #expect(ProcessMaps.file(containing: 0x7ffd_5e5d_1000, in: Self.maps) == nil)
        #expect(ProcessMaps.file(containing: 1, in: "") == nil)
    }

    @Test func thisProcessRunsAnExistingLibrdkafkaFile() throws {
        let path = try #require(LibrdkafkaVersion.loadedPath)
        #expect(path.contains("librdkafka"), "\(path)")
        #expect(FileManager.default.fileExists(atPath: path), "\(path)")
    }
}
