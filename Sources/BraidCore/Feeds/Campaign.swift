import Foundation

/// A configured campaign (`campaigns` in the configuration), shown by `banner` components of
/// its target segment while `starts_at ≤ now < ends_at`.
public struct Campaign: Codable, Sendable, Equatable {
    public var id: String
    public var title: String
    public var imageUrl: String
    /// Where a tap on the banner leads (an app deep link or a web URL).
    public var linkUrl: String
    public var startsAt: Date
    public var endsAt: Date
    /// The segment whose banner components show it.
    public var segment: String

    public init(id: String, title: String, imageUrl: String, linkUrl: String, startsAt: Date, endsAt: Date, segment: String = FeedComponent.defaultSegment) {
        self.id = id
        self.title = title
        self.imageUrl = imageUrl
        self.linkUrl = linkUrl
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.segment = segment
    }

    /// Shown at `time`: the window is closed at its start and open at its end.
    public func isActive(at time: Date) -> Bool { startsAt <= time && time < endsAt }

    enum CodingKeys: String, CodingKey {
        case id, title, imageUrl, linkUrl, startsAt, endsAt, segment
    }

    // Times are RFC 3339 text in files (`2026-12-01T00:00:00Z`), whatever the decoder's date
    // strategy; `segment` may be omitted.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func time(_ key: CodingKeys) throws -> Date {
            let text = try c.decode(String.self, forKey: key)
            guard let date = CampaignTime.parse(text) else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: c, debugDescription: "must be an RFC 3339 time with a zone, e.g. 2026-12-01T00:00:00Z, not '\(text)'")
            }
            return date
        }
        self.init(
            id: try c.decode(String.self, forKey: .id), title: try c.decode(String.self, forKey: .title),
            imageUrl: try c.decode(String.self, forKey: .imageUrl), linkUrl: try c.decode(String.self, forKey: .linkUrl),
            startsAt: try time(.startsAt), endsAt: try time(.endsAt),
            segment: try c.decodeIfPresent(String.self, forKey: .segment) ?? FeedComponent.defaultSegment)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(title, forKey: .title)
        try c.encode(imageUrl, forKey: .imageUrl)
        try c.encode(linkUrl, forKey: .linkUrl)
        try c.encode(CampaignTime.format(startsAt), forKey: .startsAt)
        try c.encode(CampaignTime.format(endsAt), forKey: .endsAt)
        try c.encode(segment, forKey: .segment)
    }
}

/// RFC 3339 times of campaigns, with or without fractional seconds.
public enum CampaignTime {
    static let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    static let whole = Date.ISO8601FormatStyle()

    public static func parse(_ text: String) -> Date? {
        guard text.count <= 40 else { return nil }
        return (try? whole.parse(text)) ?? (try? fractional.parse(text))
    }

    public static func format(_ date: Date) -> String { whole.format(date) }
}
