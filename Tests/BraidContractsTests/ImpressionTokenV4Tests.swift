@testable import BraidContracts
@testable import BraidCore
import BraidTestSupport
import Foundation
import Testing

@Suite("Impression ids, version 4: the snapshot's age")
struct ImpressionTokenV4Tests {
    let codec = ImpressionCodec(key: Array("test-key".utf8))
    let issued: Int64 = 1_800_000_000

    func token(age: Int?) -> ImpressionToken {
        ImpressionToken(
            experiment: "draft", offset: 20, slotTeams: [0, 1, 1, 0], teamCount: 2, creditWindow: 20..<24, nonce: 7, issuedAt: issued,
            userKey: codec.userKey(user: nil, session: "s-1"), snapshotAgeSeconds: age)
    }

    @Test("The age goes through the codec in two bytes, clamped; ids without one stay version 3 and still decode")
    func roundTrip() throws {
        for age in [0, 1, 899, 3_600, 65_535] {
            let decoded = try codec.decode(codec.encode(token(age: age)))
            #expect(decoded == token(age: age) && decoded.formatVersion == 4 && decoded.snapshotAgeSeconds == age)
        }
        #expect(token(age: 100_000).snapshotAgeSeconds == 65_535 && token(age: -5).snapshotAgeSeconds == 0)
        let withAge = Base64URL.decode(codec.encode(token(age: 42)))!
        let without = Base64URL.decode(codec.encode(token(age: nil)))!
        #expect(withAge.count - without.count == 2, "two bytes more than version 3")
        let v3 = try codec.decode(codec.encode(token(age: nil)))
        #expect(v3.formatVersion == 3 && v3.snapshotAgeSeconds == nil && v3.issuedAt == issued)
        // A version-4 body cut inside its age or its rest is malformed, not a crash.
        func signed(_ body: [UInt8]) -> String { Base64URL.encode(body + codec.mac(body)) }
        let body = Array(withAge.dropLast(16))
        for cut in [15, 16, 24] {
            #expect(throws: ImpressionTokenError.malformed) { try codec.decode(signed(Array(body.prefix(cut)))) }
        }
    }

    @Test("The event carries the age and the worker's bucket follows it")
    func eventsAndBuckets() throws {
        let event = try #require(ExperimentEvent.make(.impression, token: token(age: 1_000)))
        #expect(event.snapshotAgeSeconds == 1_000)
        #expect(try ExperimentEvent.decode(event.encoded()).snapshotAgeSeconds == 1_000)
        var negative = event
        negative.snapshotAgeSeconds = -1
        #expect(throws: RequestValidationError.self) { try ExperimentEvent.decode(negative.encoded()) }
        #expect(ExperimentEvent.make(.impression, token: token(age: nil))?.snapshotAgeSeconds == nil)
        let buckets: [(Int?, SnapshotAge)] = [
            (nil, .unknown), (0, .under15Minutes), (899, .under15Minutes), (900, .under1Hour), (3_599, .under1Hour),
            (3_600, .under6Hours), (21_599, .under6Hours), (21_600, .older), (65_535, .older),
        ]
        for (seconds, bucket) in buckets { #expect(SnapshotAge(seconds: seconds) == bucket, "\(String(describing: seconds))") }
    }
}
