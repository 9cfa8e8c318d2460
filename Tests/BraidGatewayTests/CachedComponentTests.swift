import BraidContracts
import BraidCore
@testable import BraidGateway
import Foundation
import Testing

/// A near-cache entry's kept ETags, as pure logic: a page's ETag is its items' hash whether
/// it was kept, computed afresh, or asked for again.
@Suite("Cached components")
struct CachedComponentTests {
    static func cached(_ count: Int) throws -> CachedComponent {
        let items: [JSONValue] = (0..<count).map { .object(["id": .string("r\($0)"), "title": .string("Curry \($0)")]) }
        let content = ComponentContent(
            feed: "home", type: .recommendedRecipes, scope: ComponentScope(user: "u1"), items: items, version: 3,
            createdAt: Date(timeIntervalSince1970: 1_800_000_000))
        return CachedComponent(try StoredComponent.encode(content))
    }

    @Test func everyPagesETagIsTheHashOfItsItemsBeyondTheKeptPagesToo() throws {
        let cached = try Self.cached(40)
        let pages = (0..<(CachedComponent.keptPages + 4)).map { ($0 * 3)..<min($0 * 3 + 3, 40) }
        for _ in 0..<2 {
            for range in pages {
                #expect(cached.etag(of: range) == ComponentHash.content(ofJoinedItems: cached.stored.joinedItems(range)))
            }
        }
        #expect(cached.etag(of: 0..<3) != cached.etag(of: 3..<6))
    }
}
