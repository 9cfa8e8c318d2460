/// A server-driven feed: its components and the A/B variants that order them. Defined in
/// configuration; the gateway draws layouts from it and the workers materialize its
/// components.
public struct FeedDefinition: Codable, Sendable, Equatable {
    /// Components by id (the id is what clients request content for).
    public var components: [String: FeedComponent]
    /// Variants chosen by a stable bucket (0..<100) of the user; weights must sum to 100.
    public var variants: [FeedVariant]
    /// The variants measured as a layout experiment; nil: served, not measured.
    public var experiment: LayoutExperimentSettings?

    public init(components: [String: FeedComponent], variants: [FeedVariant], experiment: LayoutExperimentSettings? = nil) {
        self.components = components
        self.variants = variants
        self.experiment = experiment
    }
}

/// One A/B variant of a feed: which components appear, in which order.
public struct FeedVariant: Codable, Sendable, Equatable {
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

/// How a client draws a component.
public enum LayoutStyle: String, NamedCases, Hashable {
    case horizontalList = "horizontal_list"
    case verticalList = "vertical_list"
    case grid
    case carousel
    case tabs
    /// One fixed-size object (a user's stats, a profile header).
    case card
    /// One fixed-size campaign image.
    case banner
}

/// Whose content a component shows.
public enum ComponentScopeKind: String, NamedCases, Hashable {
    /// One content per user.
    case user
    /// Shared by every user of a segment.
    case segment
    /// One content per category (`category` names it).
    case category
}

/// One component of a feed: what it shows and how a client lays it out.
public struct FeedComponent: Codable, Sendable, Equatable {
    public var type: ComponentType
    public var title: String
    public var style: LayoutStyle
    /// Scrolls across the feed's own scroll direction (a horizontal row in a vertical feed).
    public var orthogonalScroll: Bool
    public var autoScrollIntervalMs: Int?
    /// Skeleton size before content arrives.
    public var width: Int
    public var height: Int
    /// Items per content page.
    public var pageSize: Int
    public var scope: ComponentScopeKind
    /// The category of `category`-scoped components.
    public var category: String?
    /// The segment of `segment`-scoped components (nil: `all`): a banner shows the campaigns
    /// targeted at it.
    public var segment: String?
    public var ttlSeconds: Int
    /// How a `carousel`-style component advances (layout hints).
    public var carousel: CarouselOptions?
    /// `profile_tabs`: the ids of this feed's components that are its tabs, in order.
    public var tabs: [String]?
    /// `interleaved_recipes`: the live query (ranking A) of the list.
    public var query: String?
    /// `interleaved_recipes`: the cached ranking (B); nil: `interleaving.ranking`.
    public var ranking: String?

    /// The segment a `segment`-scoped component is for when none is configured.
    public static let defaultSegment = "all"

    public init(
        type: ComponentType, title: String, style: LayoutStyle = .horizontalList, orthogonalScroll: Bool = true,
        autoScrollIntervalMs: Int? = nil, width: Int = 160, height: Int = 220, pageSize: Int = 10,
        scope: ComponentScopeKind = .user, category: String? = nil, segment: String? = nil, ttlSeconds: Int = 21_600,
        carousel: CarouselOptions? = nil, tabs: [String]? = nil, query: String? = nil, ranking: String? = nil
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
        self.segment = segment
        self.ttlSeconds = ttlSeconds
        self.carousel = carousel
        self.tabs = tabs
        self.query = query
        self.ranking = ranking
    }

    /// The scope of this component's content for `user`.
    public func scope(user: String) -> ComponentScope {
        switch scope {
        case .category: ComponentScope(category: category)
        case .segment: ComponentScope(segment: segment ?? Self.defaultSegment)
        case .user: ComponentScope(user: user)
        }
    }
}

/// How a carousel advances, as the WEAR top page specifies it: sent to clients as layout hints.
public struct CarouselOptions: Codable, Sendable, Equatable {
    /// Time between automatic advances.
    public var autoAdvanceIntervalMs: Int
    /// Advance only once the interval has passed without any interaction (a swipe or a touch
    /// restarts the wait), so the carousel never moves under a user's finger.
    public var advanceOnlyWhenIdle: Bool
    /// After the last item, continue with the first.
    public var wrap: Bool
    /// Duration of the slide from one item to the next.
    public var transitionMs: Int
    /// Draw each item's `overlay_title` over its image.
    public var overlayTitle: Bool

    public init(autoAdvanceIntervalMs: Int = 5_000, advanceOnlyWhenIdle: Bool = true, wrap: Bool = true, transitionMs: Int = 300, overlayTitle: Bool = true) {
        self.autoAdvanceIntervalMs = autoAdvanceIntervalMs
        self.advanceOnlyWhenIdle = advanceOnlyWhenIdle
        self.wrap = wrap
        self.transitionMs = transitionMs
        self.overlayTitle = overlayTitle
    }

    enum CodingKeys: String, CodingKey {
        case autoAdvanceIntervalMs, advanceOnlyWhenIdle, wrap, transitionMs, overlayTitle
    }

    /// Omitted keys take the initialiser's defaults (documented in the README).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = Self()
        self.init(
            autoAdvanceIntervalMs: try c.decodeIfPresent(Int.self, forKey: .autoAdvanceIntervalMs) ?? defaults.autoAdvanceIntervalMs,
            advanceOnlyWhenIdle: try c.decodeIfPresent(Bool.self, forKey: .advanceOnlyWhenIdle) ?? defaults.advanceOnlyWhenIdle,
            wrap: try c.decodeIfPresent(Bool.self, forKey: .wrap) ?? defaults.wrap,
            transitionMs: try c.decodeIfPresent(Int.self, forKey: .transitionMs) ?? defaults.transitionMs,
            overlayTitle: try c.decodeIfPresent(Bool.self, forKey: .overlayTitle) ?? defaults.overlayTitle)
    }
}

// Entries of feeds are written by people: only `type` and `title` of a component and `name`,
// `weight` and `components` of a variant are required; the rest take the initialisers'
// defaults (documented in the README).

extension FeedComponent {
    enum CodingKeys: String, CodingKey {
        case type, title, style, orthogonalScroll, autoScrollIntervalMs, width, height, pageSize, scope, category, segment, ttlSeconds
        case carousel, tabs, query, ranking
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = Self(type: try c.decode(ComponentType.self, forKey: .type), title: try c.decode(String.self, forKey: .title))
        self.init(
            type: defaults.type, title: defaults.title,
            style: try c.decodeIfPresent(LayoutStyle.self, forKey: .style) ?? defaults.style,
            orthogonalScroll: try c.decodeIfPresent(Bool.self, forKey: .orthogonalScroll) ?? defaults.orthogonalScroll,
            autoScrollIntervalMs: try c.decodeIfPresent(Int.self, forKey: .autoScrollIntervalMs),
            width: try c.decodeIfPresent(Int.self, forKey: .width) ?? defaults.width,
            height: try c.decodeIfPresent(Int.self, forKey: .height) ?? defaults.height,
            pageSize: try c.decodeIfPresent(Int.self, forKey: .pageSize) ?? defaults.pageSize,
            scope: try c.decodeIfPresent(ComponentScopeKind.self, forKey: .scope) ?? defaults.scope,
            category: try c.decodeIfPresent(String.self, forKey: .category),
            segment: try c.decodeIfPresent(String.self, forKey: .segment),
            ttlSeconds: try c.decodeIfPresent(Int.self, forKey: .ttlSeconds) ?? defaults.ttlSeconds,
            carousel: try c.decodeIfPresent(CarouselOptions.self, forKey: .carousel),
            tabs: try c.decodeIfPresent([String].self, forKey: .tabs),
            query: try c.decodeIfPresent(String.self, forKey: .query),
            ranking: try c.decodeIfPresent(String.self, forKey: .ranking))
    }
}

extension FeedVariant {
    enum CodingKeys: String, CodingKey {
        case name, weight, components, prefetch
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            name: try c.decode(String.self, forKey: .name), weight: try c.decode(Int.self, forKey: .weight),
            components: try c.decode([String].self, forKey: .components),
            prefetch: try c.decodeIfPresent(Int.self, forKey: .prefetch) ?? 2)
    }
}
