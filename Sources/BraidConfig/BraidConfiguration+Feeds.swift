import BraidCore

extension BraidConfiguration {
    /// The demo feeds of `make run`: a home timeline with two variants and a profile screen.
    public static let defaultFeeds: [String: FeedDefinition] = [
        "home": FeedDefinition(
            components: [
                "recommended": FeedComponent(type: .recommendedRecipes, title: "Recommended for you"),
                "following": FeedComponent(type: .followedAuthorsNew, title: "New from people you follow"),
                "popular-dessert": FeedComponent(
                    type: .popularInCategory, title: "Popular desserts", style: .grid, orthogonalScroll: false,
                    width: 180, height: 240, scope: .category, category: "dessert"),
                "carousel": FeedComponent(
                    type: .carousel, title: "Today's picks", style: .carousel, autoScrollIntervalMs: 5_000,
                    width: 360, height: 200, pageSize: 5, scope: .segment),
                "new-arrivals": FeedComponent(
                    type: .newArrivals, title: "New arrivals", style: .verticalList, orthogonalScroll: false,
                    width: 360, height: 120, pageSize: 20, scope: .segment),
            ],
            variants: [
                FeedVariant(name: "control", weight: 50, components: ["carousel", "recommended", "following", "popular-dessert", "new-arrivals"]),
                FeedVariant(name: "recommended-first", weight: 50, components: ["recommended", "carousel", "following", "popular-dessert", "new-arrivals"]),
            ]),
        "profile": FeedDefinition(
            components: [
                "recipes": FeedComponent(
                    type: .profileRecipes, title: "Recipes", style: .tabs, orthogonalScroll: false, width: 180, height: 240, pageSize: 12),
                "cooksnaps": FeedComponent(
                    type: .profileCooksnaps, title: "Cooksnaps", style: .tabs, orthogonalScroll: false, width: 120, height: 120, pageSize: 24),
            ],
            variants: [FeedVariant(name: "default", weight: 100, components: ["recipes", "cooksnaps"], prefetch: 1)]),
    ]
}
