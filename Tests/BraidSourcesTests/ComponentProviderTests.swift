import BraidContracts
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

    /// Types the corpus answers (banners come from campaigns, interleaved lists from search).
    static let corpusTypes = ComponentType.allCases.filter { $0 != .banner && $0 != .interleavedRecipes }

    @Test(arguments: corpusTypes)
    func everyTypeReturnsItemsAndPaginates(type: ComponentType) async throws {
        try await withProvider { provider in
            let scope = Self.scope(for: type)
            let big = try await provider.items(ComponentRequest(type: type, scope: scope, limit: 4, offset: 0))
            #expect(!big.items.isEmpty)
            #expect(big.items.count <= 4)
            #expect(big.items.allSatisfy { $0["id"]?.stringValue?.isEmpty == false })
            #expect(throws: Never.self, "\(type.rawValue) items do not have their shape") { try ComponentItemShape.validate(big.items, for: type) }
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

/// The kinds that are not recipe lists, and searches inside profile tabs.
@Suite("Feed component kinds over the corpus")
struct ComponentKindTests {
    static let generator = ComponentProviderTests.generator
    static let user = ComponentProviderTests.user

    func withProvider(_ body: (SQLiteComponentProvider) async throws -> Void) async throws {
        try await ComponentProviderTests().withProvider(body)
    }

    @Test func creatorsAreUsersTheUserDoesNotFollowMostFollowedFirst() async throws {
        try await withProvider { provider in
            let user = Self.generator.user(at: Int(Self.user.dropFirst())!)
            let page = try await provider.items(ComponentRequest(type: .recommendedCreators, scope: .init(user: user.id), limit: 50))
            let ids = page.items.compactMap { $0["id"]?.stringValue }
            #expect(!ids.isEmpty)
            #expect(!ids.contains(user.id))
            #expect(Set(ids).isDisjoint(with: user.follows))
            // Recipe counts are the authors' recipes in the corpus.
            let recipes = (0..<Self.generator.documents).map { Self.generator.recipe(at: $0).authorID }
            for item in page.items {
                let id = item["id"]?.stringValue ?? ""
                #expect(Int(item["recipe_count"]?.numberValue ?? -1) == recipes.filter { $0 == id }.count, "\(id)")
            }
            let followers = page.items.compactMap { $0["follower_count"]?.numberValue }
            #expect(followers == followers.sorted(by: >))
        }
    }

    @Test func headerTabsAndStatsCountTheCorpus() async throws {
        try await withProvider { provider in
            let user = Self.generator.user(at: Int(Self.user.dropFirst())!)
            let own = (0..<Self.generator.documents).map { Self.generator.recipe(at: $0) }.filter { $0.authorID == user.id }
            let header = try await provider.items(ComponentRequest(type: .profileHeader, scope: .init(user: user.id)))
            #expect(header.items.count == 1)
            #expect(header.items.first?["name"]?.stringValue == user.name)
            #expect(header.items.first?["recipe_count"]?.numberValue == Double(own.count))
            #expect(header.items.first?["cooksnap_count"]?.numberValue == Double(user.cooksnaps.count))
            #expect(header.items.first?["following_count"]?.numberValue == Double(user.follows.count))
            let tabs = try await provider.items(ComponentRequest(type: .profileTabs, scope: .init(user: user.id)))
            #expect(tabs.items == [
                .object(["id": "profile_recipes", "count": .number(Double(own.count))]),
                .object(["id": "profile_cooksnaps", "count": .number(Double(user.cooksnaps.count))]),
            ])
            let nobody = try await provider.items(ComponentRequest(type: .profileHeader, scope: .init(user: "nobody")))
            #expect(nobody.items.isEmpty)
            let stats = try await provider.items(ComponentRequest(type: .userStats, scope: .init(user: user.id)))
            #expect(stats.items.count == 1)
            #expect(stats.items.first?["recipes"]?.numberValue == Double(own.count))
            #expect(stats.items.first?["period_days"]?.numberValue == 7)
            let secondPage = try await provider.items(ComponentRequest(type: .userStats, scope: .init(user: user.id), offset: 1))
            #expect(secondPage.items.isEmpty)
        }
    }

    @Test func tabSearchesStayInsideTheAuthorsTab() async throws {
        try await withProvider { provider in
            let user = Self.generator.user(at: Int(Self.user.dropFirst())!)
            let own = (0..<Self.generator.documents).map { Self.generator.recipe(at: $0) }.filter { $0.authorID == user.id }
            // A word of a title in Latin script (the prefix table; CJK text goes to the trigram one).
            let word = try #require(own.first { $0.title.unicodeScalars.allSatisfy(\.isASCII) }?.title.split(separator: " ").last.map(String.init))
            let expected = Set(own.filter { recipe in
                ([recipe.title, recipe.category] + recipe.ingredients).joined(separator: " ").lowercased()
                    .split(whereSeparator: { !$0.isLetter && !$0.isNumber }).contains { $0.hasPrefix(word.lowercased()) }
            }.map(\.id))
            var found: [String] = []
            var offset: Int? = 0
            while let next = offset {
                let page = try await provider.items(ComponentRequest(type: .profileRecipes, scope: .init(user: user.id), limit: 2, offset: next, query: word))
                found += page.items.compactMap { $0["id"]?.stringValue }
                offset = page.nextOffset
            }
            #expect(Set(found) == expected)
            #expect(found.count == expected.count)
            let none = try await provider.items(ComponentRequest(type: .profileRecipes, scope: .init(user: user.id), query: "zzqx"))
            #expect(none.items.isEmpty)
            let blank = try await provider.items(ComponentRequest(type: .profileCooksnaps, scope: .init(user: user.id), query: "!!!"))
            #expect(blank.items.isEmpty)
            var refused: ComponentProviderError?
            do {
                _ = try await provider.items(ComponentRequest(type: .newArrivals, scope: .init(segment: "all"), query: "rice"))
            } catch let error as ComponentProviderError {
                refused = error
            }
            #expect(refused?.code == .badRequest, "a query on new_arrivals was not refused")
        }
    }

    @Test func campaignsShowInTheirWindowToTheirSegmentAndSayWhenThatChanges() async throws {
        let day: TimeInterval = 86_400
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let campaigns = [
            Campaign(id: "running", title: "t", imageUrl: "/a", linkUrl: "/a", startsAt: now - day, endsAt: now + 2 * day),
            Campaign(id: "over", title: "t", imageUrl: "/b", linkUrl: "/b", startsAt: now - 3 * day, endsAt: now - day),
            Campaign(id: "later", title: "t", imageUrl: "/c", linkUrl: "/c", startsAt: now + day, endsAt: now + 5 * day),
            Campaign(id: "elsewhere", title: "t", imageUrl: "/d", linkUrl: "/d", startsAt: now - day, endsAt: now + day / 2, segment: "new-users"),
            Campaign(id: "starts-now", title: "t", imageUrl: "/e", linkUrl: "/e", startsAt: now, endsAt: now + 3 * day),
        ]
        let provider = FeedComponentProvider(campaigns: campaigns, corpus: CampaignProvider(campaigns: []))
        let page = try await provider.items(ComponentRequest(type: .banner, scope: .init(segment: "all"), now: now))
        #expect(page.items.compactMap { $0["id"]?.stringValue } == ["running", "starts-now"])
        #expect(page.validUntil == now + day, "the next change is 'later' starting")
        try ComponentItemShape.validate(page.items, for: .banner)
        let other = try await provider.items(ComponentRequest(type: .banner, scope: .init(segment: "new-users"), now: now))
        #expect(other.items.compactMap { $0["id"]?.stringValue } == ["elsewhere"])
        #expect(other.validUntil == now + day / 2)
        let atEnd = try await provider.items(ComponentRequest(type: .banner, scope: .init(segment: "all"), now: now + 2 * day))
        #expect(atEnd.items.compactMap { $0["id"]?.stringValue } == ["later", "starts-now"], "the end of a window is open")
        await #expect(throws: ComponentProviderError.self) {
            try await provider.items(ComponentRequest(type: .banner, scope: .init(user: "u1"), now: now))
        }
    }
}
