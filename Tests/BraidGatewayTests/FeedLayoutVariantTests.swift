import BraidConfig
import BraidCore
import BraidExperiments
import Testing

@testable import BraidGateway

/// What a user of each variant is shown: exactly that variant's components, in its order, and
/// the variant their bucket under the feed's salt picks.
@Suite("feed layouts per variant")
struct FeedLayoutVariantTests {
    static let home = BraidConfiguration.defaultFeeds["home"]!
    static let users = (0..<2_000).map { "user-\($0)" }

    /// The variant named by a bucket computed here from the weights, independently of FeedLayout.
    static func expectedVariant(of user: String, in feed: FeedDefinition, salt: String) -> FeedVariant {
        let bucket = Bucketing.bucket(of: user, salt: salt)
        var upper = 0
        for variant in feed.variants {
            upper += variant.weight
            if bucket < upper { return variant }
        }
        return feed.variants[0]
    }

    @Test func everyUserGetsTheirVariantsComponentsInItsOrder() {
        var seen: Set<String> = []
        for user in Self.users {
            let layout = FeedLayout.make(feed: "home", definition: Self.home, user: user)
            let variant = Self.expectedVariant(of: user, in: Self.home, salt: "feed:home")
            #expect(layout.bucket == variant.name, "\(user)")
            #expect(layout.components.map(\.id) == variant.components, "\(user) in \(variant.name)")
            #expect(layout.components.map(\.prefetch) == variant.components.indices.map { $0 < variant.prefetch })
            #expect(layout.experiment == "home-layout")
            seen.insert(variant.name)
        }
        // Both orders were checked, and they differ.
        #expect(seen == Set(Self.home.variants.map(\.name)))
        #expect(Self.home.variants[0].components != Self.home.variants[1].components)
    }

    /// A configured salt splits users anew (about half of them move at 50/50); without one the
    /// feed's default salt keeps everyone where they were before the experiment was named.
    @Test func aConfiguredSaltReshufflesAboutHalfTheUsers() {
        var salted = Self.home
        salted.experiment = LayoutExperimentSettings(name: "home-layout-2", salt: "home-layout-2")
        var unnamed = Self.home
        unnamed.experiment = nil
        var moved = 0
        for user in Self.users {
            let before = FeedLayout.make(feed: "home", definition: unnamed, user: user)
            #expect(FeedLayout.make(feed: "home", definition: Self.home, user: user).bucket == before.bucket)
            let after = FeedLayout.make(feed: "home", definition: salted, user: user)
            #expect(after.bucket == Self.expectedVariant(of: user, in: salted, salt: "home-layout-2").name)
            if after.bucket != before.bucket { moved += 1 }
        }
        #expect((800...1_200).contains(moved), "\(moved) of \(Self.users.count) moved")
    }
}
