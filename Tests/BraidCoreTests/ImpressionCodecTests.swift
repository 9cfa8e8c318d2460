import BraidCore
import BraidTestSupport
import Foundation
import Testing

@Suite("Impression ids")
struct ImpressionCodecTests {
    let codec = ImpressionCodec(key: Array("test-key".utf8))

    @Test("Round trip of every page size, both teams, any offset")
    func roundTrip() throws {
        var rng = SeededGenerator(seed: 11)
        for count in [1, 7, 8, 9, 30, 100] {
            let token = ImpressionToken(
                experiment: "exp-\(count)", offset: Int.random(in: 0...1_000_000, using: &rng),
                teams: (0..<count).map { _ in Bool.random(using: &rng) ? Team.a : Team.b }, nonce: rng.next())
            let text = codec.encode(token)
            #expect(text.utf8.count <= 512)
            #expect(try codec.decode(text) == token)
            #expect(token.team(at: token.offset + count - 1) == token.teams.last)
            #expect(token.team(at: token.offset + count) == nil)
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
        let text = codec.encode(ImpressionToken(experiment: "e", offset: 3, teams: [.a, .b], nonce: 42))
        var tampered = Array(text)
        tampered[4] = tampered[4] == "A" ? "B" : "A"
        #expect(throws: ImpressionTokenError.self) { try codec.decode(String(tampered)) }
        #expect(throws: ImpressionTokenError.self) { try ImpressionCodec(key: Array("other".utf8)).decode(text) }
        // A cursor signed with the same configured key is not an impression id.
        let cursor = CursorCodec(key: Array("test-key".utf8)).encode(Cursor(
            snapshotVersion: 1, offset: 3, pageSize: 2, configurationHash: 0, seed: 0, queryHash: 0, expiresAt: .max))
        #expect(throws: ImpressionTokenError.self) { try codec.decode(cursor) }
        var rng = SeededGenerator(seed: 5)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        for length in 0..<300 {
            let noise = String((0..<length).map { _ in alphabet.randomElement(using: &rng)! })
            #expect(throws: ImpressionTokenError.self) { try codec.decode(noise) }
        }
    }
}
