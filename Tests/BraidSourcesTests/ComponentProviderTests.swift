import BraidCore
import BraidSources
import Foundation
import Testing

@Suite("Feed component providers over the corpus")
struct ComponentProviderTests {
    static let generator = CorpusGenerator(seed: 7, documents: 800, users: 30)

    /// A user whose every tab has content: follows, views, cooksnaps and own recipes.
    static let user: String = {
        let authors = Set((0..<generator.documents).map { generator.recipe(at: $0).authorID })
        let index = (0..<generator.users).first { index in
            let user = generator.user(at: index)
            return authors.contains(user.id) && user.cooksnaps.count >= 4 && user.views.count >= 3
                && user.follows.contains(where: authors.contains)
        }
        return generator.user(at: index ?? 0).id
    }()

    static func scope(for type: ComponentType) -> ComponentScope {
        switch type {
        case .popularInCategory: ComponentScope(category: "dessert")
        case .newArrivals, .carousel: ComponentScope(segment: "all")
        default: ComponentScope(user: user)
        }
    }

    func withProvider(_ body: (SQLiteComponentProvider) async throws -> Void) async throws {
        try await CorpusFixture.withCorpus(documents: Self.generator.documents, users: Self.generator.users, seed: Self.generator.seed) { path in
            let provider = SQLiteComponentProvider(path: path)
            do {
                try await body(provider)
                try await provider.shutdown()
            } catch {
                try? await provider.shutdown()
                throw error
            }
        }
    }

    @Test(arguments: ComponentType.allCases)
    func everyTypeReturnsItemsAndPaginates(type: ComponentType) async throws {
        try await withProvider { provider in
            let scope = Self.scope(for: type)
            let big = try await provider.items(ComponentRequest(type: type, scope: scope, limit: 4, offset: 0))
            #expect(!big.items.isEmpty)
            #expect(big.items.count <= 4)
            #expect(big.items.allSatisfy { $0["id"]?.stringValue?.isEmpty == false && $0["image_url"] != nil })
            var paged: [JSONValue] = []
            var offset: Int? = 0
            while let next = offset, paged.count < 4 {
                let page = try await provider.items(ComponentRequest(type: type, scope: scope, limit: 2, offset: next))
                #expect(page.items.count <= 2)
                paged += page.items
                offset = page.nextOffset
            }
            #expect(paged.prefix(4) == big.items.prefix(4))
        }
    }

    @Test func lastPageHasNoNextOffset() async throws {
        try await withProvider { provider in
            let request = ComponentRequest(type: .profileCooksnaps, scope: ComponentScope(user: Self.user), limit: 200)
            let all = try await provider.items(request)
            let cooksnaps = Self.generator.user(at: Int(Self.user.dropFirst())!).cooksnaps
            #expect(all.items.count == cooksnaps.count)
            #expect(all.nextOffset == nil)
            let first = try await provider.items(ComponentRequest(type: .profileCooksnaps, scope: ComponentScope(user: Self.user), limit: 2))
            #expect(first.nextOffset == 2)
        }
    }

    @Test func contentsFollowTheirType() async throws {
        try await withProvider { provider in
            let user = Self.generator.user(at: Int(Self.user.dropFirst())!)
            let recommended = try await provider.items(ComponentRequest(type: .recommendedRecipes, scope: ComponentScope(user: user.id), limit: 50))
            let viewed = Set(user.views.map(\.recipeID))
            #expect(recommended.items.allSatisfy { !viewed.contains($0["id"]?.stringValue ?? "") })

            let following = try await provider.items(ComponentRequest(type: .followedAuthorsNew, scope: ComponentScope(user: user.id), limit: 50))
            #expect(following.items.allSatisfy { user.follows.contains($0["author_id"]?.stringValue ?? "") })
            let dates = following.items.compactMap { $0["published_at"]?.stringValue }
            #expect(dates == dates.sorted(by: >))

            let desserts = try await provider.items(ComponentRequest(type: .popularInCategory, scope: ComponentScope(category: "dessert"), limit: 20))
            #expect(desserts.items.allSatisfy { $0["category"] == "dessert" })
            let popularity = desserts.items.compactMap { $0["popularity"]?.numberValue }
            #expect(popularity == popularity.sorted(by: >))

            let own = try await provider.items(ComponentRequest(type: .profileRecipes, scope: ComponentScope(user: user.id), limit: 50))
            #expect(own.items.allSatisfy { $0["author_id"]?.stringValue == user.id })

            let snaps = try await provider.items(ComponentRequest(type: .profileCooksnaps, scope: ComponentScope(user: user.id), limit: 50))
            #expect(Set(snaps.items.compactMap { $0["id"]?.stringValue }) == Set(user.cooksnaps.map(\.id)))
        }
    }

    @Test func stateHashIsStableForTheSameContent() async throws {
        try await withProvider { provider in
            let request = ComponentRequest(type: .carousel, scope: ComponentScope(segment: "all"), limit: 5)
            let first = try await provider.items(request)
            let second = try await provider.items(request)
            #expect(first.stateHash == second.stateHash)
            let content = ComponentContent(feed: "home", type: .carousel, scope: request.scope, items: first.items, version: 1, createdAt: .now)
            #expect(content.stateHash == first.stateHash)
            var nextPage = request
            nextPage.offset = 5
            #expect(try await provider.items(nextPage).stateHash != first.stateHash)
        }
    }

    @Test func missingScopeIsAnError() async throws {
        try await withProvider { provider in
            for type in [ComponentType.recommendedRecipes, .followedAuthorsNew, .profileRecipes, .profileCooksnaps, .popularInCategory] {
                let error = await #expect(throws: ComponentProviderError.self) {
                    try await provider.items(ComponentRequest(type: type, scope: ComponentScope(segment: "all")))
                }
                #expect(error?.code == .missingScope)
            }
            let error = await #expect(throws: ComponentProviderError.self) {
                try await provider.items(ComponentRequest(type: .newArrivals, scope: ComponentScope(segment: "all"), limit: 0))
            }
            #expect(error?.code == .badRequest)
        }
    }
}
