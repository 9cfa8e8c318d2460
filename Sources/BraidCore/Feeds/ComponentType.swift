/// The component types workers can materialize and the gateway serves.
public enum ComponentType: String, NamedCases, Hashable {
    case recommendedRecipes = "recommended_recipes"
    case followedAuthorsNew = "followed_authors_new"
    case popularInCategory = "popular_in_category"
    case newArrivals = "new_arrivals"
    case carousel
    case profileRecipes = "profile_recipes"
    case profileCooksnaps = "profile_cooksnaps"
    /// Users worth following (the note timeline's recommended-users section).
    case recommendedCreators = "recommended_creators"
    /// One user's activity over the last week: a card, not a list.
    case userStats = "user_stats"
    /// A configured campaign (`campaigns`) for the component's segment.
    case banner
    /// The profile itself, above its tabs.
    case profileHeader = "profile_header"
    /// The tab bar of a profile: one entry per tab with its item count.
    case profileTabs = "profile_tabs"
    /// An endless list interleaving a cached ranking with a live query, like search.
    case interleavedRecipes = "interleaved_recipes"
}

/// How a component's drawn size relates to its content.
public enum ComponentSizing: String, Sendable, Hashable {
    /// The size follows the content (lists): the state hash is the content's hash.
    case content
    /// The size never changes (cards, banners, headers, tab bars): the state hash is derived
    /// from the type and the layout, so a client can size it from the layout alone.
    case fixed
}

/// The shape of one item of a component (`$defs` of `Schemas/component.schema.json`).
public enum ComponentItemKind: String, Sendable, Hashable, CaseIterable {
    case recipe
    case carouselItem = "carousel_item"
    case cooksnap
    case creator
    case userStats = "user_stats"
    case banner
    case profileHeader = "profile_header"
    case profileTab = "profile_tab"
    case searchItem = "search_item"
}

extension ComponentType {
    public var sizing: ComponentSizing {
        switch self {
        case .userStats, .banner, .profileHeader, .profileTabs: .fixed
        default: .content
        }
    }

    public var itemKind: ComponentItemKind {
        switch self {
        case .recommendedRecipes, .followedAuthorsNew, .popularInCategory, .newArrivals, .profileRecipes: .recipe
        case .carousel: .carouselItem
        case .profileCooksnaps: .cooksnap
        case .recommendedCreators: .creator
        case .userStats: .userStats
        case .banner: .banner
        case .profileHeader: .profileHeader
        case .profileTabs: .profileTab
        case .interleavedRecipes: .searchItem
        }
    }

    /// Tabs of a profile: they page on their own and accept a per-tab search query `q`.
    public var isSearchableTab: Bool { self == .profileRecipes || self == .profileCooksnaps }

    /// Content is one object at most (cards, banners, headers).
    public var isSingleObject: Bool { self == .userStats || self == .profileHeader }

    /// Stored by workers as component content. The interleaved list's stored part is a
    /// ranking snapshot: its pages are assembled per request like search pages.
    public var storesContent: Bool { self != .interleavedRecipes }
}
