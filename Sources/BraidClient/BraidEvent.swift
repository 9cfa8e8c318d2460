/// An impression or a click of a page that carried an `impression_id`, as `POST /v1/events`
/// takes it. Sending one twice is harmless: the gateway counts a duplicate and never credits
/// it twice.
public enum BraidEvent: Sendable, Hashable {
    /// The page was on screen. Report it when its items were actually seen, not when the page
    /// was fetched: a page fetched ahead and never shown would count as a tie and dilute the
    /// experiment.
    case impression(impressionID: String)
    /// The user opened the item at `position` (the item's global `position`, as the page gave it).
    case click(impressionID: String, position: Int)

    public var impressionID: String {
        switch self {
        case .impression(let id), .click(let id, _): id
        }
    }
}

/// Where the app reports events: an ``EventReporter`` in the app, an ``EventRecorder`` in its tests.
public protocol EventReporting: Sendable {
    /// Takes the event and returns at once: never blocks, never throws, never waits for the
    /// network.
    func report(_ event: BraidEvent)
}

extension SearchPage {
    /// The impression of this page; nil when the page carries no `impression_id` (it is not
    /// part of a team-draft experiment).
    public var impression: BraidEvent? { impressionId.map { .impression(impressionID: $0) } }

    /// A click on `item` of this page; nil when the page carries no `impression_id`.
    public func click(_ item: SearchItem) -> BraidEvent? {
        impressionId.map { .click(impressionID: $0, position: item.position) }
    }
}
