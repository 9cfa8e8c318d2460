import BraidContracts
@testable import BraidGateway
import BraidCore
import BraidSources
import BraidTestSupport
import Foundation
import Testing

/// Pure pieces of the fast paths: reconciling a prefix fetched before B was known, and
/// writing component bodies around stored bytes.
@Suite("Fast path logic")
struct FastPathLogicTests {
    @Test("A prefix without B's documents gives exactly the excluded query's range, or says where the rest starts")
    func prefixReconciliation() {
        var generator = SeededGenerator(seed: 5)
        for _ in 0..<3_000 {
            let total = Int.random(in: 0..<60, using: &generator)
            let a = (0..<total).map { SearchHit(id: "d\($0)", score: Double(total - $0)) }
            let excluded = Set(a.filter { _ in Int.random(in: 0..<3, using: &generator) == 0 }.map(\.id) + ["elsewhere"])
            let withoutB = a.filter { !excluded.contains($0.id) }
            let lower = Int.random(in: 0..<40, using: &generator)
            let range = lower..<(lower + Int.random(in: 0..<20, using: &generator))
            let requested = Int.random(in: 0..<70, using: &generator)
            let prefix = Array(a.prefix(requested))
            // What the sequential query (excluding B, from, size) returns.
            let expected = Array(withoutB[min(range.lowerBound, withoutB.count)..<min(range.upperBound, withoutB.count)])
            switch PrefixReconciliation.slice(prefix: prefix, requested: requested, excluding: excluded, range: range) {
            case .complete(let hits):
                #expect(hits == expected, "total \(total) requested \(requested) range \(range)")
            case .short(let have, let next):
                // Only when the prefix was full and did not reach the range's end.
                #expect(prefix.count == requested)
                let rest = Array(withoutB[min(next, withoutB.count)..<min(range.upperBound, withoutB.count)])
                #expect(have + rest == expected, "total \(total) requested \(requested) range \(range)")
                #expect(next >= range.lowerBound && next < range.upperBound)
            }
        }
    }

    @Test("Component bodies are the JSON the document describes, items copied byte for byte")
    func componentBodies() throws {
        let items: [JSONValue] = [.object(["id": "a", "title": "Say \"hi\"\n/\\"]), .object(["id": "b"])]
        let joined = ArraySlice(try CanonicalJSON.joined(items))
        let ready = ComponentContentResponse.ready(
            "odd\"name", type: .recommendedRecipes, sizing: nil, source: .cached, joined: joined, count: 2, nextCursor: "c\u{1}")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(ready.json)) as? [String: Any])
        #expect(object["component"] as? String == "odd\"name")
        #expect(object["next_cursor"] as? String == "c\u{1}")
        #expect(object["state_hash"] as? String == ComponentContent.stateHash(of: items))
        #expect(ready.etag == ready.stateHash)
        #expect((object["items"] as? [[String: Any]])?.first?["title"] as? String == "Say \"hi\"\n/\\")
        let fixed = ComponentContentResponse.ready(
            "b", type: .banner, sizing: "f", source: .live, joined: joined, count: 2, nextCursor: nil)
        let fixedObject = try #require(try JSONSerialization.jsonObject(with: Data(fixed.json)) as? [String: Any])
        #expect(fixedObject["state_hash"] as? String == "f")
        #expect(fixedObject["next_cursor"] is NSNull)
        #expect(fixed.etag == ComponentContent.stateHash(of: items))
        let pending = try #require(try JSONSerialization.jsonObject(with: Data(ComponentContentResponse.pending("p", type: "banner").json)) as? [String: Any])
        #expect(pending.keys.sorted() == ["component", "status", "type"])
        var writer = ComponentResponseWriter()
        writer.writeBatch([ready, fixed])
        let batch = try #require(try JSONSerialization.jsonObject(with: Data(writer.bytes)) as? [String: Any])
        #expect((batch["components"] as? [Any])?.count == 2)
    }
}
