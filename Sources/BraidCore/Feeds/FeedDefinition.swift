/// A server-driven feed: its components and the A/B variants that order them. Defined in
/// configuration; the gateway draws layouts from it and the workers materialize its
/// components.
public struct FeedDefinition: Codable, Sendable, Equatable {
    /// Components by id (the id is what clients request content for).
    public var components: [String: FeedComponent]
    /// Variants chosen by a stable bucket (0..<100) of the user; weights must sum to 100.
    public var variants: [FeedVariant]

    public init(components: [String: FeedComponent], variants: [FeedVariant]) {
        self.components = components
        self.variants = variants
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
    public var ttlSeconds: Int

    public init(
        type: ComponentType, title: String, style: LayoutStyle = .horizontalList, orthogonalScroll: Bool = true,
        autoScrollIntervalMs: Int? = nil, width: Int = 160, height: Int = 220, pageSize: Int = 10,
        scope: ComponentScopeKind = .user, category: String? = nil, ttlSeconds: Int = 21_600
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

// Entries of feeds are written by people: only `type` and `title` of a component and `name`,
// `weight` and `components` of a variant are required; the rest take the initialisers'
// defaults (documented in the README).

extension FeedComponent {
    enum CodingKeys: String, CodingKey {
        case type, title, style, orthogonalScroll, autoScrollIntervalMs, width, height, pageSize, scope, category, ttlSeconds
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
            ttlSeconds: try c.decodeIfPresent(Int.self, forKey: .ttlSeconds) ?? defaults.ttlSeconds)
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
