import BraidCore

/// Stage 1 of a feed: which components appear, in which order, and how to draw their
/// skeletons — no content, so the first paint never waits for the slowest source.
public struct FeedLayout: Sendable, Encodable, Equatable {
    public struct Component: Sendable, Encodable, Equatable {
        public struct Layout: Sendable, Encodable, Equatable {
            public var style: String
            public var orthogonalScroll: Bool
            public var autoScrollIntervalMs: Int?
            public var defaultSize: Size

            enum CodingKeys: String, CodingKey {
                case style
                case orthogonalScroll = "orthogonal_scroll"
                case autoScrollIntervalMs = "auto_scroll_interval_ms"
                case defaultSize = "default_size"
            }
        }

        public struct Size: Sendable, Encodable, Equatable {
            public var width: Int
            public var height: Int
        }

        public var id: String
        public var type: String
        public var title: String
        public var layout: Layout
        public var contentURL: String
        public var prefetch: Bool

        enum CodingKeys: String, CodingKey {
            case id, type, title, layout, prefetch
            case contentURL = "content_url"
        }
    }

    public var feed: String
    public var user: String
    /// The variant the user's bucket selected (for analytics of feed A/B tests).
    public var bucket: String
    public var components: [Component]

    /// The layout of `feed` for `user`: the variant is picked by the user's stable bucket.
    public static func make(feed name: String, definition: FeedDefinition, user: String) -> FeedLayout {
        let variant = Self.variant(of: definition, for: user, feed: name)
        let components = variant.components.enumerated().compactMap { index, id -> Component? in
            guard let section = definition.components[id] else { return nil }
            return Component(
                id: id,
                type: section.type.rawValue,
                title: section.title,
                layout: .init(
                    style: section.style.rawValue,
                    orthogonalScroll: section.orthogonalScroll,
                    autoScrollIntervalMs: section.autoScrollIntervalMs,
                    defaultSize: .init(width: section.width, height: section.height)),
                contentURL: "/v1/feeds/\(name)/components/\(id)?user=\(Self.percentEncoded(user))",
                prefetch: index < variant.prefetch)
        }
        return FeedLayout(feed: name, user: user, bucket: variant.name, components: components)
    }

    /// The variant of the user's stable bucket (weights sum to 100 after validation).
    static func variant(of definition: FeedDefinition, for user: String, feed: String) -> FeedVariant {
        Bucketing.pick(definition.variants, bucket: Bucketing.bucket(of: user, salt: "feed:\(feed)"), weight: \.weight)!
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
