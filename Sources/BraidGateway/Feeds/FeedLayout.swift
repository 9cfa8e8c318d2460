import BraidContracts
import BraidCore
import BraidExperiments

/// Stage 1 of a feed: which components appear, in which order, and how to draw their
/// skeletons — no content, so the first paint never waits for the slowest source.
public struct FeedLayout: Sendable, Encodable, Equatable {
    public struct Component: Sendable, Encodable, Equatable {
        public struct Layout: Sendable, Encodable, Equatable {
            public var style: String
            public var orthogonalScroll: Bool
            public var autoScrollIntervalMs: Int?
            public var defaultSize: Size
            /// `content`: the state hash comes with the content; `fixed`: the drawn size never
            /// changes and `state_hash` is given here, so the client can size the skeleton.
            public var sizing: String
            /// Fixed-size components only: the state hash their content will carry.
            public var stateHash: String?
            public var carousel: Carousel?

            enum CodingKeys: String, CodingKey {
                case style, sizing, carousel
                case orthogonalScroll = "orthogonal_scroll"
                case autoScrollIntervalMs = "auto_scroll_interval_ms"
                case defaultSize = "default_size"
                case stateHash = "state_hash"
            }
        }

        public struct Size: Sendable, Encodable, Equatable {
            public var width: Int
            public var height: Int
        }

        /// How a carousel advances (``CarouselOptions``).
        public struct Carousel: Sendable, Encodable, Equatable {
            public var autoAdvanceIntervalMs: Int
            public var advanceOnlyWhenIdle: Bool
            public var wrap: Bool
            public var transitionMs: Int
            public var overlayTitle: Bool

            enum CodingKeys: String, CodingKey {
                case wrap
                case autoAdvanceIntervalMs = "auto_advance_interval_ms"
                case advanceOnlyWhenIdle = "advance_only_when_idle"
                case transitionMs = "transition_ms"
                case overlayTitle = "overlay_title"
            }
        }

        /// One tab of a tab group: a component of the same feed that pages on its own.
        public struct Tab: Sendable, Encodable, Equatable {
            public var id: String
            public var type: String
            public var title: String
            public var contentURL: String
            /// The tab accepts `q` (a search inside the tab).
            public var searchable: Bool
            public var defaultSize: Size

            enum CodingKeys: String, CodingKey {
                case id, type, title, searchable
                case contentURL = "content_url"
                case defaultSize = "default_size"
            }
        }

        public var id: String
        public var type: String
        public var title: String
        public var layout: Layout
        public var contentURL: String
        public var prefetch: Bool
        /// `profile_tabs` only.
        public var tabs: [Tab]?

        enum CodingKeys: String, CodingKey {
            case id, type, title, layout, prefetch, tabs
            case contentURL = "content_url"
        }
    }

    public var feed: String
    public var user: String
    /// The variant the user's bucket selected (for analytics of feed A/B tests).
    public var bucket: String
    public var components: [Component]
    /// The layout experiment measuring the variants (`feeds.<feed>.experiment.name`), if any.
    public var experiment: String?
    /// The signed layout impression id (``LayoutImpression``), with `experiment`: sent back with
    /// the layout's impression event and with clicks on its components.
    public var impressionID: String?

    enum CodingKeys: String, CodingKey {
        case feed, user, bucket, components, experiment
        case impressionID = "impression_id"
    }

    /// The layout of `feed` for `user`: the variant is picked by the user's stable bucket.
    /// Content URLs name the user only when `userInURLs` (`identity.mode: query`); a verified
    /// user is named by the credential the client sends with each request.
    public static func make(feed name: String, definition: FeedDefinition, user: String, userInURLs: Bool = true) -> FeedLayout {
        let variant = Self.variant(of: definition, for: user, feed: name)
        let query = userInURLs ? "?user=\(Self.percentEncoded(user))" : ""
        let contentURL = { (id: String) in "/v1/feeds/\(name)/components/\(id)\(query)" }
        let components = variant.components.enumerated().compactMap { index, id -> Component? in
            guard let section = definition.components[id] else { return nil }
            let fixed = section.type.sizing == .fixed
            let tabs = section.tabs?.compactMap { tab -> Component.Tab? in
                guard let tabSection = definition.components[tab] else { return nil }
                return Component.Tab(
                    id: tab, type: tabSection.type.rawValue, title: tabSection.title, contentURL: contentURL(tab),
                    searchable: tabSection.type.isSearchableTab, defaultSize: .init(width: tabSection.width, height: tabSection.height))
            }
            return Component(
                id: id,
                type: section.type.rawValue,
                title: section.title,
                layout: .init(
                    style: section.style.rawValue,
                    orthogonalScroll: section.orthogonalScroll,
                    autoScrollIntervalMs: section.autoScrollIntervalMs ?? section.carousel?.autoAdvanceIntervalMs,
                    defaultSize: .init(width: section.width, height: section.height),
                    sizing: section.type.sizing.rawValue,
                    stateHash: fixed ? ComponentHash.fixed(type: section.type, style: section.style, width: section.width, height: section.height) : nil,
                    carousel: section.carousel.map {
                        .init(
                            autoAdvanceIntervalMs: $0.autoAdvanceIntervalMs, advanceOnlyWhenIdle: $0.advanceOnlyWhenIdle, wrap: $0.wrap,
                            transitionMs: $0.transitionMs, overlayTitle: $0.overlayTitle)
                    }),
                contentURL: contentURL(id),
                prefetch: index < variant.prefetch,
                tabs: tabs)
        }
        return FeedLayout(feed: name, user: user, bucket: variant.name, components: components, experiment: definition.experiment?.name)
    }

    /// The variant of the user's stable bucket (weights sum to 100 after validation), under the
    /// feed's salt (`feed:<feed>` unless its experiment names another).
    static func variant(of definition: FeedDefinition, for user: String, feed: String) -> FeedVariant {
        Bucketing.pick(definition.variants, bucket: Bucketing.bucket(of: user, salt: definition.bucketingSalt(feed: feed)), weight: \.weight)!
    }

    static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (byte < 16 ? "0" + hex : hex)
            }
        }
        return out
    }
}
