@testable import BraidContracts
import BraidTestSupport
@testable import BraidCore
import Foundation
import Testing

@Suite("cursor codec")
struct CursorCodecTests {
    let codec = CursorCodec(key: Array("test-key".utf8))
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func cursor(snapshot: Int64? = 1_795_341_600_000, expiresAt: Int64 = 1_800_000_600) -> SearchCursor {
        SearchCursor(
            snapshots: .single(snapshot), offset: 60, pageSize: 30, configurationHash: 0xDEAD_BEEF_0000_0001, seed: 0x0123_4567_89AB_CDEF,
            queryHash: 42, expiresAt: expiresAt)
    }

    @Test func multileaveCursorsPinOneVersionPerCachedRankingAndRefuseTampering() throws {
        for versions in [[1_000], [1_000, nil], [1, nil, 3], [Int64.max, 2, nil, -4]] as [[Int64?]] {
            var value = cursor(snapshot: nil)
            value.snapshots = .multileave(versions)
            let text = codec.encode(value)
            #expect(text.count <= 140)
            #expect(try codec.decodeSearch(text, now: now) == value)
            // Any one character changed, the versions included, breaks the signature or the form.
            for index in [text.count - 30, text.count - 20] {
                var characters = Array(text)
                characters[index] = characters[index] == "A" ? "B" : "A"
                #expect(throws: CursorError.self) { try codec.decodeSearch(String(characters), now: now) }
            }
        }
    }

    /// A leaked key lets anyone sign a cursor; what it may ask for stays bounded all the same.
    @Test func aValidlySignedCursorWithAnOversizedPageIsRefused() throws {
        var forged = cursor()
        forged.pageSize = 1_000
        #expect(throws: CursorError.malformed) { try codec.decodeSearch(codec.encode(forged), now: now) }
        forged.pageSize = PageSize.range.upperBound
        #expect(try codec.decodeSearch(codec.encode(forged), now: now).pageSize == 100)
    }

    @Test func roundTripsWithAndWithoutSnapshot() throws {
        for value in [cursor(), cursor(snapshot: nil)] {
            let text = codec.encode(value)
            #expect(text.count == 91)
            #expect(text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
            #expect(try codec.decodeSearch(text, now: now) == value)
        }
    }

    @Test func expiredCursorsAreRefused() {
        let text = codec.encode(cursor(expiresAt: 1_799_999_999))
        #expect(throws: CursorError.expired) { try codec.decodeSearch(text, now: now) }
    }

    @Test func everySingleByteChangeIsRefused() throws {
        let bytes = try #require(Base64URL.decode(codec.encode(cursor())))
        for index in bytes.indices {
            for flip: UInt8 in [0x01, 0x80] {
                var tampered = bytes
                tampered[index] ^= flip
                #expect(throws: CursorError.badSignature) { try codec.decodeSearch(Base64URL.encode(tampered), now: now) }
            }
        }
    }

    @Test func anotherKeysCursorIsRefused() {
        let other = CursorCodec(key: Array("other-key".utf8))
        #expect(throws: CursorError.badSignature) { try codec.decodeSearch(other.encode(cursor()), now: now) }
    }

    @Test func aRetiredKeysCursorsAreAcceptedUntilItsTimeOnly() throws {
        let old = CursorCodec(key: Array("old-key".utf8))
        let until = now.addingTimeInterval(60)
        let rotated = CursorCodec(key: Array("test-key".utf8), retired: RetiredKey(key: Array("old-key".utf8), until: until))
        let before = old.encode(cursor(expiresAt: 1_800_001_000))
        #expect(try rotated.decodeSearch(before, now: now) == cursor(expiresAt: 1_800_001_000))
        #expect(throws: CursorError.badSignature) { try rotated.decode(before, now: until) }
        // New cursors are signed with the new key only: the old key alone refuses them.
        let after = rotated.encode(cursor())
        #expect(try codec.decodeSearch(after, now: now) == cursor())
        #expect(throws: CursorError.badSignature) { try old.decode(after, now: now) }
        // A third key is no more welcome during the overlap.
        #expect(throws: CursorError.badSignature) { try rotated.decode(CursorCodec(key: Array("x".utf8)).encode(cursor()), now: now) }
    }

    @Test func truncatedPaddedAndGarbageInputIsMalformed() {
        let text = codec.encode(cursor())
        for bad in [String(text.dropLast()), String(text.dropFirst(4)), text + "A", "", "====", "not a cursor!", String(repeating: "A", count: 5000), "ＣＵＲＳＯＲ"] {
            #expect(throws: CursorError.malformed, "\(bad.prefix(20))") { try codec.decodeSearch(bad, now: now) }
        }
    }

    @Test func randomBytesNeverDecodeAndNeverTrap() {
        var rng = SeededGenerator(seed: 9)
        for length in 0..<200 {
            let bytes = (0..<(length % 90)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            #expect(throws: CursorError.self) { try codec.decodeSearch(Base64URL.encode(bytes), now: now) }
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(throws: CursorError.self) { try codec.decodeSearch(text, now: now) }
        }
    }

    @Test func base64URLMatchesFoundationsAlphabetAndRefusesWhatItDoesNotWrite() {
        var generator = SeededGenerator(seed: 5)
        for length in 0..<70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let foundation = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(bytes) == foundation)
            #expect(Base64URL.decode(foundation) == bytes)
        }
        // A lone last character, padding, the standard alphabet, and spare bits that are not zero.
        for text in ["QUJD" + "Q", "QQ==", "a+b/", "QR", "QUF"] {
            #expect(Base64URL.decode(text) == nil, "\(text)")
        }
        #expect(Base64URL.decode("QQ") == [0x41])
        #expect(Base64URL.decode("QUE") == [0x41, 0x41])
    }
}
