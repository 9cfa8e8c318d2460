@testable import BraidContracts
@testable import BraidCore
import BraidTestSupport
import Foundation
import Testing

@Suite("Impression ids, version 5: the feed component")
struct ImpressionTokenV5Tests {
    let codec = ImpressionCodec(key: Array("test-key".utf8))
    let issued: Int64 = 1_800_000_000
    let more = FeedComponentName(feed: "home", component: "more")!

    func token(component: FeedComponentName?, age: Int? = 120) -> ImpressionToken {
        ImpressionToken(
            experiment: "draft", offset: 20, slotTeams: [0, 1, 1, 0], teamCount: 2, creditWindow: 20..<24, nonce: 7, issuedAt: issued,
            userKey: codec.userKey(user: "u1", session: nil), snapshotAgeSeconds: age, component: component)
    }

    @Test("The component goes through the codec after the age; search ids stay version 4, byte for byte")
    func roundTrip() throws {
        let decoded = try codec.decode(codec.encode(token(component: more)))
        #expect(decoded == token(component: more) && decoded.formatVersion == 5)
        #expect(decoded.component == more && decoded.snapshotAgeSeconds == 120 && decoded.creditWindow == 20..<24)
        #expect(decoded.userKey == codec.userKey(user: "u1", session: nil))
        let search = try codec.decode(codec.encode(token(component: nil)))
        #expect(search.formatVersion == 4 && search.component == nil)
        let withComponent = Base64URL.decode(codec.encode(token(component: more)))!
        let without = Base64URL.decode(codec.encode(token(component: nil)))!
        #expect(withComponent.count - without.count == 1 + "home/more".utf8.count)
        // The longest names still fit under the codec's limit.
        let longest = FeedComponentName(feed: String(repeating: "f", count: 64), component: String(repeating: "c", count: 64))!
        let big = ImpressionToken(
            experiment: String(repeating: "e", count: 64), offset: 0, slotTeams: Array(repeating: 1, count: 100), teamCount: 5,
            creditWindow: 0..<100, nonce: 1, issuedAt: issued, userKey: nil, snapshotAgeSeconds: 1, component: longest)
        #expect(try codec.decode(codec.encode(big)).component == longest)
    }

    @Test("A component without an age is version 6 and keeps its component; without an issue time there is none")
    func componentWithoutAnAge() throws {
        let decoded = try codec.decode(codec.encode(token(component: more, age: nil)))
        #expect(decoded == token(component: more, age: nil) && decoded.formatVersion == 6)
        #expect(decoded.component == more && decoded.snapshotAgeSeconds == nil && decoded.issuedAt == issued)
        let v3 = Base64URL.decode(codec.encode(token(component: nil, age: nil)))!
        let v6 = Base64URL.decode(codec.encode(token(component: more, age: nil)))!
        #expect(v6.count - v3.count == 1 + "home/more".utf8.count)
        let old = ImpressionToken(experiment: "draft", offset: 0, teams: [.a, .b], creditWindow: 0..<2, nonce: 1, component: more)
        #expect(old.component == nil && old.formatVersion == 2)
    }

    @Test("A signed version-5 id whose component is cut short, not a feed/component, or not UTF-8 is malformed")
    func malformedComponents() {
        func signed(_ body: [UInt8]) -> String { Base64URL.encode(body + codec.mac(body)) }
        let good = Array(Base64URL.decode(codec.encode(token(component: more)))!.dropLast(16))
        let componentAt = 16
        #expect(good[componentAt] == UInt8("home/more".utf8.count))
        let rest = Array(good[(componentAt + 1 + 9)...])
        func with(_ component: [UInt8]) -> [UInt8] { Array(good[..<componentAt]) + [UInt8(component.count)] + component + rest }
        #expect((try? codec.decode(signed(with(Array("home/more".utf8)))))?.component == more, "the test builds a valid body")
        for component in [Array("home".utf8), Array("home/".utf8), Array("Home/more".utf8), Array("a/b/c".utf8), [0x68, 0x2F, 0xFF]] {
            #expect(throws: ImpressionTokenError.malformed, "\(component)") { try codec.decode(signed(with(component))) }
        }
        // The length runs past the body.
        #expect(throws: ImpressionTokenError.malformed) { try codec.decode(signed(Array(good[..<componentAt]) + [200] + Array("home/more".utf8))) }
    }

    @Test("Names: feed and component must each be a valid name, and the text form parses back")
    func names() {
        #expect(FeedComponentName("home/more") == more && more.description == "home/more")
        for text in ["home", "/more", "home/", "home/more/x", "HOME/more", "home/mo re", ""] { #expect(FeedComponentName(text) == nil, "\(text)") }
    }

    @Test("Events of a component's id carry it to the workers; a message naming something else is refused")
    func eventsCarryTheComponent() throws {
        let click = try #require(ExperimentEvent.make(.click, token: token(component: more), position: 21))
        #expect(click.component == "home/more" && click.teamIndex == 1 && click.credited == true)
        let decoded = try ExperimentEvent.decode(click.encoded())
        #expect(decoded.component == "home/more")
        #expect(try #require(ExperimentEvent.make(.impression, token: token(component: nil))).component == nil)
        var bad = click
        bad.component = "home/more/x"
        #expect(throws: RequestValidationError.self) { try ExperimentEvent.decode(bad.encoded()) }
    }
}
