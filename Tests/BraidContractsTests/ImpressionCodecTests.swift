@testable import BraidContracts
@testable import BraidCore
@testable import BraidExperiments
import BraidTestSupport
import Foundation
import Testing

@Suite("Impression ids")
struct ImpressionCodecTests {
    let codec = ImpressionCodec(key: Array("test-key".utf8))

    @Test("Round trip of every page size, up to five teams, any offset and credit window")
    func roundTrip() throws {
        var rng = SeededGenerator(seed: 11)
        for count in [1, 2, 7, 8, 9, 30, 100, 255] {
            for teamCount in 2...ImpressionToken.maxTeams {
                let offset = Int.random(in: 0...1_000_000, using: &rng)
                let from = offset + Int.random(in: -5...count, using: &rng)
                let window = from..<(from + Int.random(in: 0...(count + 5), using: &rng))
                let token = ImpressionToken(
                    experiment: "exp-\(count)", offset: offset,
                    slotTeams: (0..<count).map { _ in Int.random(in: 0..<teamCount, using: &rng) }, teamCount: teamCount,
                    creditWindow: window, nonce: rng.next())
                let text = codec.encode(token)
                #expect(text.utf8.count <= 512)
                #expect(try codec.decode(text) == token)
                // The window is kept as its overlap with the page.
                for position in (offset - 3)..<(offset + count + 3) {
                    let expected = window.contains(position) && (offset..<(offset + count)).contains(position)
                    #expect(token.isCredited(at: position) == expected, "\(window) at \(position)")
                }
                #expect(token.teamIndex(at: offset + count - 1) == token.slotTeams.last)
                #expect(token.teamIndex(at: offset + count) == nil)
                #expect((token.team(at: offset) != nil) == (teamCount == 2))
            }
        }
        // The longest possible id still decodes.
        let longest = ImpressionToken(
            experiment: String(repeating: "x", count: 255), offset: Int(UInt32.max), slotTeams: Array(repeating: 4, count: 255), teamCount: 5,
            creditWindow: 0..<Int.max, nonce: .max)
        let text = codec.encode(longest)
        #expect(text.utf8.count <= ImpressionCodec.maxTextLength)
        #expect(try codec.decode(text).slotTeams.count == 255)
    }

    /// A version-1 id (no credit window), signed with key "test-key": page offset 20, teams
    /// AABABBABAB, nonce 0x1234567890abcdef, experiment draft-exp.
    static let version1 = "AQAAABQKtAISNFZ4kKvN7wlkcmFmdC1leHAPRazEqoIc7K9690g6aYvK"

    @Test("Version-1 ids still decode, with their teams but no credit window: nothing they show is credited")
    func version1IdsDecodeWithoutCredit() throws {
        let token = try codec.decode(Self.version1)
        #expect(token.experiment == "draft-exp")
        #expect(token.offset == 20)
        #expect(token.nonce == 0x1234_5678_90AB_CDEF)
        #expect(token.teamCount == 2)
        #expect(token.slotTeams == [0, 0, 1, 0, 1, 1, 0, 1, 0, 1])
        #expect(token.creditWindow == nil)
        #expect(token.team(at: 22) == .b)
        #expect(token.positions.allSatisfy { !token.isCredited(at: $0) })
        #expect(ImpressionCredit.clicks(token, clickedPositions: token.positions) == [0, 0])
        // Tampering with a version-1 id is still caught.
        var tampered = Array(Self.version1)
        tampered[8] = tampered[8] == "A" ? "B" : "A"
        #expect(throws: ImpressionTokenError.badSignature) { try codec.decode(String(tampered)) }
    }

    @Test("The deprecated two-ranking initialiser credits the whole page, as before the window")
    @available(*, deprecated)
    func deprecatedInitialiserCreditsEverySlot() throws {
        let token = ImpressionToken(experiment: "e", offset: 4, teams: [.a, .b, .a], nonce: 1)
        #expect(token.creditWindow == 4..<7)
        #expect(try codec.decode(codec.encode(token)) == token)
    }

    @Test("Signed but unknown or inconsistent contents are refused with a clear error")
    func signedButInvalid() throws {
        // Bodies built by hand and signed with the codec's own key.
        func signed(_ body: [UInt8]) -> String { Base64URL.encode(body + codec.mac(body)) }
        let trailer: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 7, 1, UInt8(ascii: "e")]
        let valid: [UInt8] = [2, 0, 0, 0, 3, 2, 2, 0, 2, 0x10] + trailer
        #expect(try codec.decode(signed(valid)).slotTeams == [0, 1])
        #expect(throws: ImpressionTokenError.unsupportedVersion(7)) { try codec.decode(signed([7] + valid.dropFirst())) }
        let broken: [[UInt8]] = [
            [2, 0, 0, 0, 3, 2, 6, 0, 2, 0x10] + trailer,  // six teams
            [2, 0, 0, 0, 3, 2, 1, 0, 2, 0x00] + trailer,  // one team
            [2, 0, 0, 0, 3, 2, 2, 0, 3, 0x10] + trailer,  // window past the page
            [2, 0, 0, 0, 3, 2, 2, 2, 1, 0x10] + trailer,  // window ends before it starts
            [2, 0, 0, 0, 3, 2, 2, 0, 2, 0x20] + trailer,  // team 2 of 2
            [2, 0, 0, 0, 3, 2, 2, 0, 2, 0x10] + trailer.dropLast(),  // experiment cut short
            [2, 0, 0, 0, 3, 2, 2, 0, 2, 0x10] + trailer + [0],  // trailing byte
        ]
        for body in broken {
            #expect(throws: ImpressionTokenError.malformed, "\(body)") { try codec.decode(signed(body)) }
        }
    }

    @Test("After a key rotation, ids signed with the previous key count until its time, then not")
    func rotation() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let token = ImpressionToken(experiment: "e", offset: 3, teams: [.a, .b], nonce: 42)
        let old = ImpressionCodec(key: Array("old-key".utf8))
        let rotated = ImpressionCodec(
            key: Array("test-key".utf8), retired: RetiredKey(key: Array("old-key".utf8), until: now.addingTimeInterval(60)))
        #expect(try rotated.decode(old.encode(token), now: now) == token)
        #expect(throws: ImpressionTokenError.badSignature) { try rotated.decode(old.encode(token), now: now.addingTimeInterval(60)) }
        #expect(try codec.decode(rotated.encode(token)) == token)
        #expect(throws: ImpressionTokenError.badSignature) { try old.decode(rotated.encode(token), now: now) }
    }

    @Test("Tampered, foreign-key and random input is refused, never a crash")
    func refusals() {
        let text = codec.encode(ImpressionToken(experiment: "e", offset: 3, teams: [.a, .b], creditWindow: 3..<5, nonce: 42))
        var tampered = Array(text)
        tampered[4] = tampered[4] == "A" ? "B" : "A"
        #expect(throws: ImpressionTokenError.self) { try codec.decode(String(tampered)) }
        #expect(throws: ImpressionTokenError.self) { try ImpressionCodec(key: Array("other".utf8)).decode(text) }
        // A cursor signed with the same configured key is not an impression id.
        let cursor = CursorCodec(key: Array("test-key".utf8)).encode(SearchCursor(
            snapshots: .single(1), offset: 3, pageSize: 2, configurationHash: 0, seed: 0, queryHash: 0, expiresAt: .max))
        #expect(throws: ImpressionTokenError.self) { try codec.decode(cursor) }
        var rng = SeededGenerator(seed: 5)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        for length in 0..<700 {
            let noise = String((0..<length).map { _ in alphabet.randomElement(using: &rng)! })
            #expect(throws: ImpressionTokenError.self) { try codec.decode(noise) }
        }
    }
}
