@testable import BraidContracts
import BraidCore
import Foundation
import Testing

@Suite("Layout impression ids (format version 7)")
struct LayoutImpressionTests {
    let codec = ImpressionCodec(key: Array("test-key".utf8))

    func layout(variant: String = "recommended-first", session: String? = "s-1") -> LayoutImpression {
        LayoutImpression(
            experiment: "home-layout", feed: "home", variant: variant, userKey: codec.userKey(user: "u1", session: nil),
            sessionKey: session.map { codec.userKey(user: nil, session: $0) }, issuedAt: 1_800_000_000, nonce: 0xfeed)
    }

    @Test func roundTripsThroughTheCodecWithAndWithoutASession() throws {
        for original in [layout(), layout(session: nil)] {
            let text = codec.encode(original)
            #expect(try codec.decodeAny(text) == .layout(original))
        }
    }

    @Test func pageIdsStillDecodeAsPagesAndLayoutIdsAreNoPageIds() throws {
        let page = ImpressionToken(
            experiment: "draft", offset: 0, slotTeams: [0, 1], teamCount: 2, creditWindow: 0..<2, nonce: 3, issuedAt: 1_800_000_000,
            userKey: codec.userKey(user: nil, session: "s"))
        #expect(try codec.decodeAny(codec.encode(page)) == .page(page))
        #expect(throws: ImpressionTokenError.unsupportedVersion(7)) { try codec.decode(codec.encode(layout())) }
    }

    /// The variant is inside the signature: a client cannot claim another one.
    @Test func anotherVariantWrittenIntoTheIdIsAForgery() throws {
        var bytes = try #require(Base64URL.decode(codec.encode(layout(variant: "control"))))
        let at = try #require(bytes.firstRange(of: Array("control".utf8)))
        bytes.replaceSubrange(at, with: Array("controm".utf8))
        #expect(throws: ImpressionTokenError.badSignature) { try codec.decodeAny(Base64URL.encode(bytes)) }
        let other = ImpressionCodec(key: Array("another-key".utf8))
        #expect(throws: ImpressionTokenError.badSignature) { try other.decodeAny(codec.encode(layout())) }
    }

    @Test func truncatedOrPaddedIdsAreMalformedNotATrap() throws {
        let bytes = try #require(Base64URL.decode(codec.encode(layout())))
        let body = Array(bytes.dropLast(16))
        for cut in [body.count - 1, 32, 24] {
            let short = Array(body.prefix(cut))
            #expect(throws: ImpressionTokenError.malformed) { try codec.decodeAny(Base64URL.encode(short + codec.mac(short))) }
        }
        let long = body + [0]
        #expect(throws: ImpressionTokenError.malformed) { try codec.decodeAny(Base64URL.encode(long + codec.mac(long))) }
    }

    @Test func eventsMadeFromALayoutIdDecodeAndNameTheVariant() throws {
        let impression = ExperimentEvent.make(layout: layout())
        let click = ExperimentEvent.make(layout: layout(), click: "recommended")
        for event in [impression, click] {
            let decoded = try ExperimentEvent.decode(event.encoded())
            #expect(decoded.variant == "recommended-first" && decoded.feed == "home" && decoded.userKind == "user")
            #expect(decoded.sessionKey == codec.userKey(user: nil, session: "s-1").hex)
        }
        #expect(impression.type == .layoutImpression && click.type == .layoutClick && click.component == "home/recommended")
        var foreign = click
        foreign.component = "profile/recommended"
        #expect(throws: RequestValidationError.self) { try ExperimentEvent.decode(foreign.encoded()) }
    }
}
