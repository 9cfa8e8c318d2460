@testable import BraidContracts
@testable import BraidCore
import BraidTestSupport
import Foundation
import Testing

@Suite("Impression ids, version 3: issue time, user key, window")
struct ImpressionTokenV3Tests {
    let codec = ImpressionCodec(key: Array("test-key".utf8))
    let issued: Int64 = 1_800_000_000

    func token(issuedAt: Int64?, user: UserKey? = nil) -> ImpressionToken {
        ImpressionToken(
            experiment: "draft", offset: 20, slotTeams: [0, 1, 1, 0], teamCount: 2, creditWindow: 20..<24, nonce: 7, issuedAt: issuedAt,
            userKey: user)
    }

    @Test("Version 3 carries its issue time and user key through the codec, at most 18 characters longer than version 2")
    func roundTrip() throws {
        for user in [codec.userKey(user: "u00001", session: nil), codec.userKey(user: nil, session: "s-1"), UserKey.nobody] {
            let original = token(issuedAt: issued, user: user)
            let text = codec.encode(original)
            let decoded = try codec.decode(text)
            #expect(decoded == original)
            #expect(decoded.formatVersion == 3)
            #expect(decoded.issuedAt == issued)
            #expect(decoded.userKey == user)
            #expect(text.utf8.count - codec.encode(token(issuedAt: nil)).utf8.count <= 18, "13 bytes in base64url")
        }
        // Old ids still decode (so they can be refused clearly), without a time or user.
        let old = try codec.decode(codec.encode(token(issuedAt: nil)))
        #expect(old.formatVersion == 2 && old.issuedAt == nil && old.userKey == nil)
        // A version-3 id whose user key kind is unknown, or `none` with a value, is malformed.
        func signed(_ body: [UInt8]) -> String { Base64URL.encode(body + codec.mac(body)) }
        let body = Array(Base64URL.decode(codec.encode(token(issuedAt: issued, user: UserKey.nobody)))!.dropLast(16))
        var unknownKind = body
        unknownKind[5] = 9
        var noneWithValue = body
        noneWithValue[13] = 1
        for broken in [unknownKind, noneWithValue, Array(body.prefix(20))] {
            #expect(throws: ImpressionTokenError.malformed) { try codec.decode(signed(broken)) }
        }
    }

    @Test("User keys: stable per user, distinct per user, kind and secret; only the current or not-yet-retired secret matches")
    func userKeys() {
        let key = codec.userKey(user: "u00001", session: "s")
        #expect(key.kind == .user && key == codec.userKey(user: "u00001", session: "other"), "a verified user wins over the session")
        #expect(key != codec.userKey(user: "u00002", session: nil))
        #expect(codec.userKey(user: nil, session: "u00001").kind == .session)
        #expect(codec.userKey(user: nil, session: "u00001").value != key.value, "a session named like a user is not that user")
        #expect(codec.userKey(user: nil, session: nil) == UserKey.nobody)
        #expect(ImpressionCodec(key: Array("another-key".utf8)).userKey(user: "u00001", session: nil) != key)
        #expect(key.hex.count == 16 && UserKey(kind: .user, value: 1).hex == "0000000000000001")

        #expect(codec.isKey(key, of: "u00001"))
        #expect(!codec.isKey(key, of: "u00002"))
        #expect(!codec.isKey(codec.userKey(user: nil, session: "u00001"), of: "u00001"), "a session key is no user's")
        let now = Date(timeIntervalSince1970: TimeInterval(issued))
        let rotated = ImpressionCodec(key: Array("new-key".utf8), retired: RetiredKey(key: Array("test-key".utf8), until: now.addingTimeInterval(60)))
        #expect(rotated.isKey(key, of: "u00001", now: now), "ids issued before the rotation still match their user")
        #expect(!rotated.isKey(key, of: "u00001", now: now.addingTimeInterval(60)))
    }

    @Test("The window: valid from the issue time (less the skew tolerance) to the window's end; old ids are outdated")
    func window() {
        let window = 3_600
        func check(_ now: Int64) -> ImpressionValidity.Verdict {
            ImpressionValidity.check(token(issuedAt: issued), now: now, windowSeconds: window)
        }
        #expect(check(issued) == .valid)
        #expect(check(issued + Int64(window)) == .valid)
        #expect(check(issued + Int64(window) + 1) == .expired)
        #expect(check(issued - 300) == .valid, "a minting gateway up to 300 s ahead")
        #expect(check(issued - 301) == .fromTheFuture)
        #expect(ImpressionValidity.check(token(issuedAt: nil), now: issued, windowSeconds: window) == .outdated(version: 2))
    }

    @Test("An id's events stop counting before its impression state can expire, so an old id never counts again")
    func windowIsShorterThanTheState() {
        let ttl = Int64(ImpressionValidity.impressionStateTTLSeconds)
        let skew = Int64(ImpressionValidity.clockSkewToleranceSeconds)
        let longest = Int64(ImpressionValidity.maxWindowSeconds)
        #expect(longest + 2 * skew < ttl)
        // The latest event the gateway accepts with the longest window…
        #expect(ImpressionValidity.check(issuedAt: issued, now: issued + longest, windowSeconds: Int(longest)) == .valid)
        #expect(ImpressionValidity.check(issuedAt: issued, now: issued + longest + 1, windowSeconds: Int(longest)) == .expired)
        // …is still credited by a worker that reads it within the hour…
        #expect(ImpressionValidity.isCreditable(issuedAt: issued, now: issued + longest + 3_599))
        // …and nothing is credited once the state of an impression whose first event came as
        // early as it can (issued − skew, a minting clock ahead) may be gone.
        let earliestState = issued - skew
        #expect(!ImpressionValidity.isCreditable(issuedAt: issued, now: earliestState + ttl - skew))
        #expect(!ImpressionValidity.isCreditable(issuedAt: issued, now: issued + ttl))
        // The worker clock may be behind by the skew too: still inside the state's life.
        #expect(issued + ttl - 2 * skew <= earliestState + ttl)
    }

    @Test("Events carry the issue time and user key of version-3 ids, and none for older ones")
    func events() throws {
        let user = codec.userKey(user: "u00001", session: nil)
        let event = try #require(ExperimentEvent.make(.click, token: token(issuedAt: issued, user: user), position: 21))
        let decoded = try ExperimentEvent.decode(event.encoded())
        #expect(decoded.issuedAt == Date(timeIntervalSince1970: TimeInterval(issued)))
        #expect(decoded.userKey == user.hex && decoded.userKind == "user")
        let old = try #require(ExperimentEvent.make(.impression, token: token(issuedAt: nil)))
        #expect(old.issuedAt == nil && old.userKey == nil && old.userKind == nil)
    }
}
