extension BraidConfiguration {
    /// A server-driven feed: its components and the A/B variants that order them.
    public struct FeedSection: Codable, Sendable, Equatable {
        /// Components by id (the id is what clients request content for).
        public var components: [String: ComponentSection]
        /// Variants chosen by a stable bucket (0..<100) of the user; weights must sum to 100.
        public var variants: [VariantSection]

        public init(components: [String: ComponentSection], variants: [VariantSection]) {
            self.components = components
            self.variants = variants
        }
    }

    public struct VariantSection: Codable, Sendable, Equatable {
        public var name: String
        /// Share of users, in percent.
        public var weight: Int
        /// Component ids in display order.
        public var components: [String]
        /// How many leading components the client should fetch right away.
        public var prefetch: Int

        public init(name: String, weight: Int, components: [String], prefetch: Int = 2) {
            self.name = name
            self.weight = weight
            self.components = components
            self.prefetch = prefetch
        }
    }

    public struct ComponentSection: Codable, Sendable, Equatable {
        /// One of the component types of `Schemas/request.schema.json`.
        public var type: String
        public var title: String
        /// Client layout style, e.g. `horizontal_list`, `grid`, `carousel`, `tabs`.
        public var style: String
        /// Scrolls across the feed's own scroll direction (a horizontal row in a vertical feed).
        public var orthogonalScroll: Bool
        public var autoScrollIntervalMs: Int?
        /// Skeleton size before content arrives.
        public var width: Int
        public var height: Int
        /// Items per content page.
        public var pageSize: Int
        /// Whose content: `user` (per user), `segment` (shared by a segment) or `category`.
        public var scope: String
        /// The category of `popular_in_category` components.
        public var category: String?
        public var ttlSeconds: Int

        public init(
            type: String, title: String, style: String = "horizontal_list", orthogonalScroll: Bool = true,
            autoScrollIntervalMs: Int? = nil, width: Int = 160, height: Int = 220, pageSize: Int = 10,
            scope: String = "user", category: String? = nil, ttlSeconds: Int = 21_600
        ) {
            self.type = type
            self.title = title
            self.style = style
            self.orthogonalScroll = orthogonalScroll
            self.autoScrollIntervalMs = autoScrollIntervalMs
            self.width = width
            self.height = height
            self.pageSize = pageSize
            self.scope = scope
            self.category = category
            self.ttlSeconds = ttlSeconds
        }
    }

    /// The demo feeds of `make run`: a home timeline with two variants and a profile screen.
    public static let defaultFeeds: [String: FeedSection] = [
        "home": FeedSection(
            components: [
                "recommended": ComponentSection(type: "recommended_recipes", title: "Recommended for you"),
                "following": ComponentSection(type: "followed_authors_new", title: "New from people you follow"),
                "popular-dessert": ComponentSection(
                    type: "popular_in_category", title: "Popular desserts", style: "grid", orthogonalScroll: false,
                    width: 180, height: 240, scope: "category", category: "dessert"),
                "carousel": ComponentSection(
                    type: "carousel", title: "Today's picks", style: "carousel", autoScrollIntervalMs: 5_000,
                    width: 360, height: 200, pageSize: 5, scope: "segment"),
                "new-arrivals": ComponentSection(
                    type: "new_arrivals", title: "New arrivals", style: "vertical_list", orthogonalScroll: false,
                    width: 360, height: 120, pageSize: 20, scope: "segment"),
            ],
            variants: [
                VariantSection(name: "control", weight: 50, components: ["carousel", "recommended", "following", "popular-dessert", "new-arrivals"]),
                VariantSection(name: "recommended-first", weight: 50, components: ["recommended", "carousel", "following", "popular-dessert", "new-arrivals"]),
            ]),
        "profile": FeedSection(
            components: [
                "recipes": ComponentSection(
                    type: "profile_recipes", title: "Recipes", style: "tabs", orthogonalScroll: false, width: 180, height: 240, pageSize: 12),
                "cooksnaps": ComponentSection(
                    type: "profile_cooksnaps", title: "Cooksnaps", style: "tabs", orthogonalScroll: false, width: 120, height: 120, pageSize: 24),
            ],
            variants: [VariantSection(name: "default", weight: 100, components: ["recipes", "cooksnaps"], prefetch: 1)]),
    ]
}

// Entries of open maps (feeds, their components and variants) are replaced whole by the file,
// so their optional keys need defaults of their own when decoding: the ones of the
// initialisers above, which the README documents.

extension BraidConfiguration.ComponentSection {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = Self(type: try c.decode(String.self, forKey: .type), title: try c.decode(String.self, forKey: .title))
        self.init(
            type: defaults.type, title: defaults.title,
            style: try c.decodeIfPresent(String.self, forKey: .style) ?? defaults.style,
            orthogonalScroll: try c.decodeIfPresent(Bool.self, forKey: .orthogonalScroll) ?? defaults.orthogonalScroll,
            autoScrollIntervalMs: try c.decodeIfPresent(Int.self, forKey: .autoScrollIntervalMs),
            width: try c.decodeIfPresent(Int.self, forKey: .width) ?? defaults.width,
            height: try c.decodeIfPresent(Int.self, forKey: .height) ?? defaults.height,
            pageSize: try c.decodeIfPresent(Int.self, forKey: .pageSize) ?? defaults.pageSize,
            scope: try c.decodeIfPresent(String.self, forKey: .scope) ?? defaults.scope,
            category: try c.decodeIfPresent(String.self, forKey: .category),
            ttlSeconds: try c.decodeIfPresent(Int.self, forKey: .ttlSeconds) ?? defaults.ttlSeconds)
    }
}

extension BraidConfiguration.VariantSection {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            name: try c.decode(String.self, forKey: .name), weight: try c.decode(Int.self, forKey: .weight),
            components: try c.decode([String].self, forKey: .components),
            prefetch: try c.decodeIfPresent(Int.self, forKey: .prefetch) ?? 2)
    }
}
