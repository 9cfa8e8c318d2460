@testable import BraidContracts
import BraidTestSupport
@testable import BraidCore
import Foundation
import Testing

@Suite("walk state coding")
struct WalkCodingTests {
    let codec = CursorCodec(key: Array("test-key".utf8))
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// Ids like the demo corpus's, at random from 20,000 (or `count` of them).
    static func demoIDs(_ count: Int, seed: UInt64 = 3, of corpus: Int = 20_000) -> [String] {
        var generator = SeededGenerator(seed: seed)
        var ids: Set<String> = []
        while ids.count < count {
            let number = String(Int.random(in: 0..<corpus, using: &generator))
            ids.insert("r" + String(repeating: "0", count: max(0, 6 - number.count)) + number)
        }
        return Array(ids)
    }

    func cursor(walk: WalkState?, versions: [Int64?] = []) -> SearchCursor {
        SearchCursor(
            snapshots: versions.isEmpty ? .single(1_795_341_600_000) : .multileave(versions), offset: 60, pageSize: 30,
            configurationHash: 0xDEAD_BEEF_0000_0001, seed: 0x0123_4567_89AB_CDEF, queryHash: 42, expiresAt: 1_800_000_600, walk: walk)
    }

    @Test func idListsRoundTripWhateverTheIDs() throws {
        let lists: [[String]] = [
            [], ["r000001"], Self.demoIDs(100), Self.demoIDs(100).sorted(), ["", "a", "", "カレー", "ab", "abc"],
            [String(repeating: "x", count: 300), String(repeating: "x", count: 299) + "y", "x"],
            (0..<50).map { "3f1c0a52-\($0)-4b1e-9d77-\(String(repeating: "0", count: 12))" },
        ]
        for ids in lists {
            let bytes = IDListCoding.encode(ids)
            #expect(IDListCoding.decode(bytes) == ids)
            // Cut anywhere, or with a byte more, it is not a list.
            for length in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 17)) {
                #expect(IDListCoding.decode(Array(bytes.prefix(length))) == nil, "\(ids.count) ids cut at \(length)")
            }
            #expect(IDListCoding.decode(bytes + [0]) == nil)
        }
    }

    @Test func sortedDemoIDsTakeAboutFourBytesEach() {
        let ids = Self.demoIDs(100)
        let sorted = IDListCoding.encode(ids.sorted()).count
        #expect(sorted <= 100 * 4 + 2, "\(sorted) bytes for 100 sorted demo ids")
        #expect(sorted < ids.map(\.utf8.count).reduce(0, +) / 2 + 100)
    }

    @Test func garbageNeverDecodesToAnythingButNilOrAListAndNeverTraps() {
        var generator = SeededGenerator(seed: 21)
        for length in 0..<400 {
            let bytes = (0..<(length % 60)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = IDListCoding.decode(bytes)
            _ = WalkRecord.Page(encoded: bytes)
        }
        // A count beyond the cap is refused before anything is allocated for it.
        var huge: [UInt8] = []
        Varint.append(UInt64(IDListCoding.maxCount + 1), to: &huge)
        #expect(IDListCoding.decode(huge) == nil)
        var index = 0
        #expect(Varint.read([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02], at: &index) == nil, "more than 64 bits")
    }

    @Test func walkCursorsRoundTripInEveryMode() throws {
        let walks: [WalkState] = WalkState.Mode.allCases.flatMap { mode in
            [
                WalkState(mode: mode, id: 0, page: 2),
                WalkState(mode: mode, id: .max, page: 917, aBase: 4_000, exhaustedTotal: 1_234),
                WalkState(mode: mode, id: 77, page: 2, aBase: 0, firstPageIDs: Self.demoIDs(10).sorted()),
                WalkState(mode: mode, id: 78, page: 2, aBase: 40, exhaustedTotal: 0, firstPageIDs: []),
            ]
        }
        for walk in walks {
            for versions in [[], [1, nil], [5, 6, 7, 8]] as [[Int64?]] {
                let value = cursor(walk: walk, versions: versions)
                let text = codec.encode(value)
                #expect(text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
                #expect(try codec.decodeSearch(text, now: now) == value)
            }
        }
        // Without ids a walk cursor stays short.
        #expect(codec.encode(cursor(walk: WalkState(mode: .recorded, id: .max, page: 3))).count == 108)
    }

    @Test func page1sCursorAtTheLargestPageFitsAURL() throws {
        // per_page 100 of a live-only walk: 100 A documents on page 1.
        let walk = WalkState(mode: .recorded, id: .max, page: 2, firstPageIDs: Self.demoIDs(100).sorted())
        let text = codec.encode(cursor(walk: walk, versions: [1, 2, 3, 4]))
        #expect(text.utf8.count <= CursorCodec.maxTextLength, "\(text.utf8.count) characters")
        #expect(try codec.decodeSearch(text, now: now).walk == walk)
        // Ids of 36 characters do not fit: the gateway then writes page 1 to the record instead.
        let long = WalkState(mode: .recorded, id: 1, page: 2, firstPageIDs: (0..<100).map { _ in UUID().uuidString }.sorted())
        #expect(codec.encode(cursor(walk: long)).utf8.count > CursorCodec.maxTextLength)
    }

    @Test func tamperedOrTruncatedWalkCursorsAreRefused() throws {
        let walk = WalkState(mode: .recorded, id: 99, page: 2, aBase: 3, firstPageIDs: Self.demoIDs(20).sorted())
        let bytes = try #require(Base64URL.decode(codec.encode(cursor(walk: walk))))
        for index in bytes.indices {
            var tampered = bytes
            tampered[index] ^= 0x04
            #expect(throws: CursorError.self) { try codec.decodeSearch(Base64URL.encode(tampered), now: now) }
        }
        // Cut short (signed again, as if this code had written it): malformed, never a trap.
        let body = Array(bytes.dropLast(16))
        for length in CursorCodec.bodyLength..<body.count {
            let cut = Array(body.prefix(length))
            let signed = cut + codec.mac(cut, key: Secret("test-key"))
            #expect(throws: CursorError.self) { try codec.decodeSearch(Base64URL.encode(signed), now: now) }
        }
        #expect(throws: CursorError.malformed) { try codec.decodeSearch(String(repeating: "A", count: CursorCodec.maxTextLength + 4), now: now) }
    }

    @Test func cursorsOfEarlierFormatsStillDecodeWithoutAWalk() throws {
        let plain = cursor(walk: nil)
        #expect(codec.encode(plain).count == 91)
        #expect(try codec.decodeSearch(codec.encode(plain), now: now).walk == nil)
        let multileave = cursor(walk: nil, versions: [1, nil])
        #expect(try codec.decodeSearch(codec.encode(multileave), now: now) == multileave)
    }

    @Test func recordPagesRoundTripAndTheRecordSaysWhatEachPageTakes() throws {
        let first = WalkRecord.Page(ids: ["r3", "r1"], aTotal: nil)
        let second = WalkRecord.Page(ids: ["r9", "r4", "r7"], aTotal: 140)
        let empty = WalkRecord.Page(ids: [], aTotal: 0)
        for page in [first, second, empty] {
            #expect(WalkRecord.Page(encoded: page.encoded()) == page)
        }
        #expect(WalkRecord.Page(encoded: second.encoded() + [1]) == nil)
        let record = WalkRecord(pages: [first, second], expiresAt: 1)
        #expect(record.step(forPage: 2) == .replay(second))
        #expect(record.step(forPage: 1) == .replay(first))
        #expect(record.step(forPage: 3) == .extend(shown: ["r3", "r1", "r9", "r4", "r7"]))
        #expect(record.step(forPage: 4) == .lost)
        #expect(WalkRecord(pages: [], expiresAt: 1).step(forPage: 1) == .extend(shown: []))
    }

    @Test func walkKeysHaveASlotOfTheirOwn() {
        let keys = CacheKeys(prefix: "p")
        #expect(keys.walk(0xAB) == "p:{walk:00000000000000ab}")
        #expect(keys.walk(.max) == "p:{walk:ffffffffffffffff}")
    }
}
