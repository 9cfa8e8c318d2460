import BraidCore
import Foundation

extension BraidConfiguration {
    /// The demo feeds of `make run`: a home timeline that shows every component kind a home
    /// page has, in two variants measured as the layout experiment `home-layout`, and a profile
    /// screen (header, and a tab group whose tabs page and search on their own).
    public static let defaultFeeds: [String: FeedDefinition] = [
        "home": FeedDefinition(
            components: [
                "banner": FeedComponent(
                    type: .banner, title: "Campaign", style: .banner, orthogonalScroll: false, width: 360, height: 120, pageSize: 1,
                    scope: .segment, ttlSeconds: 3_600),
                "my-week": FeedComponent(
                    type: .userStats, title: "Your recipes this week", style: .card, orthogonalScroll: false, width: 360, height: 96,
                    pageSize: 1),
                "carousel": FeedComponent(
                    type: .carousel, title: "Today's picks", style: .carousel, autoScrollIntervalMs: 5_000,
                    width: 360, height: 200, pageSize: 5, scope: .segment,
                    carousel: CarouselOptions(autoAdvanceIntervalMs: 5_000, advanceOnlyWhenIdle: true, wrap: true, transitionMs: 300, overlayTitle: true)),
                "recommended": FeedComponent(type: .recommendedRecipes, title: "Recommended for you"),
                "creators": FeedComponent(
                    type: .recommendedCreators, title: "Cooks to follow", width: 120, height: 160, pageSize: 10),
                "following": FeedComponent(type: .followedAuthorsNew, title: "New from people you follow"),
                "popular-dessert": FeedComponent(
                    type: .popularInCategory, title: "Popular desserts", style: .grid, orthogonalScroll: false,
                    width: 180, height: 240, scope: .category, category: "dessert"),
                "new-arrivals": FeedComponent(
                    type: .newArrivals, title: "New arrivals", style: .verticalList, orthogonalScroll: false,
                    width: 360, height: 120, pageSize: 20, scope: .segment),
                "more": FeedComponent(
                    type: .interleavedRecipes, title: "More to cook", style: .verticalList, orthogonalScroll: false,
                    width: 360, height: 120, pageSize: 20, scope: .segment, query: "rice", ranking: "featured"),
            ],
            variants: [
                FeedVariant(
                    name: "control", weight: 50,
                    components: ["banner", "carousel", "my-week", "recommended", "creators", "following", "popular-dessert", "new-arrivals", "more"]),
                FeedVariant(
                    name: "recommended-first", weight: 50,
                    components: ["banner", "recommended", "carousel", "my-week", "creators", "following", "popular-dessert", "new-arrivals", "more"]),
            ],
            experiment: LayoutExperimentSettings(name: "home-layout")),
        "profile": FeedDefinition(
            components: [
                "header": FeedComponent(
                    type: .profileHeader, title: "Profile", style: .card, orthogonalScroll: false, width: 360, height: 180, pageSize: 1),
                "tabs": FeedComponent(
                    type: .profileTabs, title: "Profile tabs", style: .tabs, orthogonalScroll: false, width: 360, height: 48, pageSize: 2,
                    tabs: ["recipes", "cooksnaps"]),
                "recipes": FeedComponent(
                    type: .profileRecipes, title: "Recipes", style: .grid, orthogonalScroll: false, width: 180, height: 240, pageSize: 12),
                "cooksnaps": FeedComponent(
                    type: .profileCooksnaps, title: "Cooksnaps", style: .grid, orthogonalScroll: false, width: 120, height: 120, pageSize: 24),
            ],
            variants: [FeedVariant(name: "default", weight: 100, components: ["header", "tabs"], prefetch: 2)]),
    ]

    /// The demo campaigns: one running, one over, one for a segment no demo component shows.
    public static let defaultCampaigns: [Campaign] = [
        Campaign(
            id: "welcome", title: "Cook something new this week", imageUrl: "/images/campaigns/welcome.jpg", linkUrl: "/campaigns/welcome",
            startsAt: Date(timeIntervalSince1970: 1_735_689_600), endsAt: Date(timeIntervalSince1970: 2_051_222_400)),
        Campaign(
            id: "summer-2025", title: "Summer salads", imageUrl: "/images/campaigns/summer-2025.jpg", linkUrl: "/campaigns/summer-2025",
            startsAt: Date(timeIntervalSince1970: 1_748_736_000), endsAt: Date(timeIntervalSince1970: 1_756_684_800)),
        Campaign(
            id: "first-recipe", title: "Post your first recipe", imageUrl: "/images/campaigns/first-recipe.jpg", linkUrl: "/campaigns/first-recipe",
            startsAt: Date(timeIntervalSince1970: 1_735_689_600), endsAt: Date(timeIntervalSince1970: 2_051_222_400), segment: "new-users"),
    ]
}
