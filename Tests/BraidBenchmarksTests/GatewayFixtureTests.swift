import Foundation
import Testing

@testable import BraidBenchmarks

@Suite("gateway group: requests and page checks")
struct GatewayFixtureTests {
    @Test func queriesAreEncodedAsPythonsQuotePlus() {
        #expect(GatewayFixture.quotePlus("miso soup") == "miso+soup")
        #expect(GatewayFixture.quotePlus("a/b&c=d_e.f-g~") == "a%2Fb%26c%3Dd_e.f-g~")
        #expect(GatewayFixture.quotePlus("カレー") == "%E3%82%AB%E3%83%AC%E3%83%BC")
        #expect(GatewayFixture.searchPaths[4] == "/v1/search?q=miso+soup&per_page=20")
        #expect(GatewayFixture.searchScript.hasPrefix(#"local paths = {"/v1/search?q=curry&per_page=20", "#))
        #expect(GatewayFixture.batchScript.contains(#"wrk.body = '{"user":"u1","components":["recommended","#))
    }

    static func page(snapshot: String, sources: [String]) -> Data {
        let items = sources.map { #"{"id":"r1","source":"\#($0)"}"# }.joined(separator: ",")
        return Data(#"{"items":[\#(items)],"interleaving":{"snapshot":\#(snapshot)}}"#.utf8)
    }

    @Test func pagesMustBeOfTheirKindWithTwentyItems() {
        let mixed = Array(repeating: "live", count: 10) + Array(repeating: "cached", count: 10)
        #expect(GatewayPages.isPage(Self.page(snapshot: #"{"version":3}"#, sources: mixed), .interleaved))
        #expect(!GatewayPages.isPage(Self.page(snapshot: "null", sources: mixed), .interleaved))
        #expect(!GatewayPages.isPage(Self.page(snapshot: #"{"version":3}"#, sources: Array(mixed.prefix(19))), .interleaved))
        #expect(!GatewayPages.isPage(Self.page(snapshot: #"{"version":3}"#, sources: Array(repeating: "live", count: 20)), .interleaved))
        #expect(GatewayPages.isPage(Self.page(snapshot: "null", sources: Array(repeating: "live", count: 20)), .live))
        #expect(!GatewayPages.isPage(Self.page(snapshot: "null", sources: mixed), .live))
        #expect(!GatewayPages.isPage(Data(#"{"items":[]}"#.utf8), .live))
    }

    @Test func batchAndComponentMustComeFromTheCache() {
        func batch(_ entries: [(String, String)]) -> Data {
            let objects = entries.map { #"{"status":"\#($0.0)","source":"\#($0.1)"}"# }.joined(separator: ",")
            return Data(#"{"components":[\#(objects)]}"#.utf8)
        }
        #expect(GatewayPages.isAllCached(batch(Array(repeating: ("ready", "cached"), count: 6))))
        #expect(!GatewayPages.isAllCached(batch(Array(repeating: ("ready", "cached"), count: 5))))
        #expect(!GatewayPages.isAllCached(batch(Array(repeating: ("ready", "cached"), count: 5) + [("pending", "cached")])))
        #expect(!GatewayPages.isAllCached(batch(Array(repeating: ("ready", "cached"), count: 5) + [("ready", "live")])))
        let items = Array(repeating: "{}", count: 10).joined(separator: ",")
        #expect(GatewayPages.isCachedComponent(Data(#"{"source":"cached","items":[\#(items)]}"#.utf8)))
        #expect(!GatewayPages.isCachedComponent(Data(#"{"source":"live","items":[\#(items)]}"#.utf8)))
        #expect(!GatewayPages.isCachedComponent(Data(#"{"source":"cached","items":[{}]}"#.utf8)))
    }
}
