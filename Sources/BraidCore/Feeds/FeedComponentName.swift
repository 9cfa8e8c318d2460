/// One component of one feed, written `<feed>/<component>` (both ``Names``): where an
/// interleaved page was shown, in impression ids, events and the outcome's `surfaces`.
public struct FeedComponentName: Sendable, Hashable, CustomStringConvertible {
    public var feed: String
    public var component: String

    /// Nil unless both are valid ``Names``.
    public init?(feed: String, component: String) {
        guard Names.isValid(feed), Names.isValid(component) else { return nil }
        self.feed = feed
        self.component = component
    }

    /// Parses `<feed>/<component>`; nil for anything else.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        self.init(feed: String(parts[0]), component: String(parts[1]))
    }

    public var description: String { "\(feed)/\(component)" }
}
