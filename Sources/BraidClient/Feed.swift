/// A feed as loaded so far: its layout, and each component's state, in layout order.
public struct Feed: Sendable {
    public struct Slot: Sendable {
        public enum State: Sendable {
            /// Not asked for yet (the layout did not say to prefetch it).
            case notLoaded
            /// Asked for, not available in time: draw the skeleton, refresh later.
            case pending
            case ready(ComponentContent)
        }

        public let layout: FeedComponentLayout
        public internal(set) var state: State
        /// What to revalidate the content with (`If-None-Match`), when known.
        public internal(set) var etag: String?
        /// The impression id of the page as last shown: the content's, or the one a 304
        /// revalidation brought (every revalidated interleaved page is a new impression).
        public internal(set) var impressionID: String?

        public var id: String { layout.id }

        /// The impression of the page as last shown; nil when it carries no impression id
        /// (it is not an interleaved team-draft page).
        public var impression: BraidEvent? { impressionID.map { .impression(impressionID: $0) } }

        /// A click on `item` of the page as last shown; nil without an impression id.
        public func click(_ item: SearchItem) -> BraidEvent? {
            impressionID.map { .click(impressionID: $0, position: item.position) }
        }
    }

    public let layout: FeedLayout
    public private(set) var slots: [Slot]

    init(layout: FeedLayout) {
        self.layout = layout
        self.slots = layout.components.map { Slot(layout: $0, state: .notLoaded, etag: nil) }
    }

    public subscript(id: String) -> Slot? { slots.first { $0.id == id } }

    /// The components asked for and still pending.
    public var pending: [String] {
        slots.compactMap { if case .pending = $0.state { $0.id } else { nil } }
    }

    /// Records a component's content from a batch. For a list component the content's
    /// `state_hash` is its ETag (the spec says so); a fixed-size one's is not, so it has none
    /// until it is fetched alone.
    mutating func update(with content: ComponentContent) {
        guard let index = slots.firstIndex(where: { $0.id == content.component }) else { return }
        let etag = slots[index].layout.layout.sizing == .content ? content.ready.map { "\"\($0.stateHash)\"" } : nil
        update(with: content, etag: etag, for: slots[index].id)
    }

    mutating func update(with content: ComponentContent, etag: String?, for id: String) {
        guard let index = slots.firstIndex(where: { $0.id == id }) else { return }
        if content.ready == nil {
            slots[index].state = .pending
        } else {
            slots[index].state = .ready(content)
            slots[index].etag = etag
            slots[index].impressionID = content.impressionID
        }
    }

    /// A 304 kept the content; an interleaved page still gets the new impression id.
    mutating func revalidated(_ id: String, impressionID: String?) {
        guard let index = slots.firstIndex(where: { $0.id == id }) else { return }
        slots[index].impressionID = impressionID
    }
}

/// One component page, or word that the page the caller holds is still current.
public enum ComponentPage: Sendable {
    case content(ComponentContent, etag: String?)
    /// The `etag` sent still matches: keep the content it came with. An interleaved page
    /// comes with a new impression id: report events of the page as shown now with it.
    case notModified(impressionID: String?)
}

extension ComponentContent {
    /// The part every ready page has (source, state hash, next cursor); nil when pending.
    public var ready: ReadyContent? {
        switch self {
        case .PendingContent: nil
        case .RecipeListContent(let c): c.value1
        case .CarouselContent(let c): c.value1
        case .CooksnapListContent(let c): c.value1
        case .CreatorListContent(let c): c.value1
        case .UserStatsContent(let c): c.value1
        case .BannerContent(let c): c.value1
        case .ProfileHeaderContent(let c): c.value1
        case .ProfileTabsContent(let c): c.value1
        case .InterleavedListContent(let c): c.value1
        }
    }

    /// An interleaved team-draft page's impression id (`impression_id`); nil for every other
    /// content.
    public var impressionID: String? {
        if case .InterleavedListContent(let list) = self { return list.value2.impressionId }
        return nil
    }

    /// The impression of this page; nil when it carries no impression id.
    public var impression: BraidEvent? { impressionID.map { .impression(impressionID: $0) } }

    /// A click on `item` of this page; nil when it carries no impression id.
    public func click(_ item: SearchItem) -> BraidEvent? {
        impressionID.map { .click(impressionID: $0, position: item.position) }
    }

    /// The component's id in its feed.
    public var component: String {
        if case .PendingContent(let pending) = self { return pending.component }
        return ready?.component ?? ""
    }
}

// Short names for the generated types an app handles most.
public typealias SearchPage = Components.Schemas.SearchPage
public typealias SearchItem = Components.Schemas.SearchItem
public typealias FeedLayout = Components.Schemas.FeedLayout
public typealias FeedComponentLayout = Components.Schemas.FeedLayout.ComponentsPayloadPayload
public typealias ComponentContent = Components.Schemas.ComponentContent
public typealias ReadyContent = Components.Schemas.ReadyContent
public typealias Recipe = Components.Schemas.Recipe
public typealias ExperimentOutcome = Components.Schemas.ExperimentOutcome
