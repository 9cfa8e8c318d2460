import BraidCore
import Foundation

/// An impression or click of a team-draft page, as the gateway publishes it to
/// `braid.events` (`Schemas/event.schema.json`) after verifying its impression id: the
/// team of a click is resolved already, so consumers need no key.
public struct ExperimentEvent: Sendable, Hashable, Codable {
    public static let schemaName = "braid.event/v1"

    public enum Kind: String, Sendable, Hashable, Codable {
        case impression
        case click
        /// A feed layout of a layout experiment was shown (``LayoutImpression``). Kinds of their
        /// own, so a worker of a release without layout experiments dead-letters them (naming
        /// the kind) rather than crediting them as a page's.
        case layoutImpression = "layout_impression"
        /// A click on a component of such a layout (`component` names it).
        case layoutClick = "layout_click"

        public var isLayout: Bool { self == .layoutImpression || self == .layoutClick }
    }

    public var schema: String
    public var type: Kind
    public var experiment: String
    /// ``ImpressionToken/id``: the impression this event belongs to.
    public var impression: String
    /// Clicks only: the global position clicked and the team that showed it (for a
    /// multileave, `A` for the live ranking and `B` for any cached one; see `teamIndex`).
    public var position: Int?
    public var team: Team?
    /// Clicks only: the team as a number, 0 the live ranking, 1… the cached rankings in the
    /// arm's order. Absent in an older gateway's events: 0 for A, 1 for B.
    public var teamIndex: Int?
    /// Teams the impression compares: 2, or up to 5 for a multileave. Absent: 2.
    public var teams: Int?
    /// False when the event is not evidence and must not be credited: a click outside the
    /// impression's credit window, or an impression with no window at all (a page past the
    /// window, or a version-1 impression id). Published anyway, so nothing a client sent is
    /// lost. Absent: true (an older gateway's events).
    public var credited: Bool?
    /// When the impression id was issued (version-3 ids): a worker credits the event only while
    /// the impression's state cannot have expired (``ImpressionValidity/isCreditable(issuedAt:now:)``).
    /// Absent in events of older ids.
    public var issuedAt: Date?
    /// The id's pseudonymous ``UserKey`` (16 hex digits) and what it was computed from
    /// (`user`, `session`, `none`). Absent in events of older ids.
    public var userKey: String?
    public var userKind: String?
    /// Impressions only: the global position of the page's first slot and its slot count, so
    /// a consumer can tell page 1 from later pages (the experiment planner fits its click model
    /// on page 1). Absent in an older gateway's events.
    public var offset: Int?
    public var slots: Int?
    /// The age in seconds of team 1's snapshot when the page was served (version-4 ids): the
    /// worker credits the impression in its ``SnapshotAge`` bucket too. Absent in events of older ids.
    public var snapshotAgeSeconds: Int?
    /// The feed component that showed the page, `<feed>/<component>` (version-5 and -6 ids): the
    /// worker credits the impression to it as well as to the experiment. Absent for search pages.
    public var component: String?
    /// Layout events only: the feed, the variant the layout showed, and the client's session
    /// key (16 hex digits) when it named a session.
    public var feed: String?
    public var variant: String?
    public var sessionKey: String?
    public var receivedAt: Date

    public init(type: Kind, experiment: String, impression: String, position: Int? = nil, team: Team? = nil, receivedAt: Date = Date()) {
        self.schema = Self.schemaName
        self.type = type
        self.experiment = experiment
        self.impression = impression
        self.position = position
        self.team = team
        self.receivedAt = receivedAt
    }

    enum CodingKeys: String, CodingKey {
        case schema, type, experiment, impression, position, team, teams, credited, offset, slots, component, feed, variant
        case sessionKey = "session_key"
        case teamIndex = "team_index"
        case receivedAt = "received_at"
        case issuedAt = "issued_at"
        case userKey = "user_key"
        case userKind = "user_kind"
        case snapshotAgeSeconds = "snapshot_age_seconds"
    }

    /// Whether a consumer credits it (`credited` absent counts as true).
    public var isCredited: Bool { credited ?? true }

    /// The event the gateway publishes for an impression or a click of a verified impression
    /// id: team resolved, evidence marked. Nil for a click on a position the impression did not
    /// show, or without a position, and for a layout kind (the request is refused).
    public static func make(
        _ type: Kind, token: ImpressionToken, position: Int? = nil, receivedAt: Date = Date()
    ) -> ExperimentEvent? {
        var event = ExperimentEvent(type: type, experiment: token.experiment, impression: token.id, receivedAt: receivedAt)
        event.teams = token.teamCount
        event.snapshotAgeSeconds = token.snapshotAgeSeconds
        event.component = token.component?.description
        if let issuedAt = token.issuedAt {
            event.issuedAt = Date(timeIntervalSince1970: TimeInterval(issuedAt))
            let user = token.userKey ?? UserKey.nobody
            event.userKey = user.hex
            event.userKind = user.kind.name
        }
        switch type {
        case .impression:
            event.credited = token.creditWindow.map { !$0.isEmpty } ?? false
            event.offset = token.offset
            event.slots = token.slotTeams.count
        case .click:
            guard let position, let index = token.teamIndex(at: position) else { return nil }
            event.position = position
            event.teamIndex = index
            event.team = index == 0 ? .a : .b
            event.credited = token.isCredited(at: position)
        case .layoutImpression, .layoutClick:
            return nil
        }
        return event
    }

    /// The event the gateway publishes for a verified layout impression id: the impression,
    /// or a click on `component` (one of the variant's components: the caller checks).
    public static func make(layout: LayoutImpression, click component: String? = nil, receivedAt: Date = Date()) -> ExperimentEvent {
        var event = ExperimentEvent(
            type: component == nil ? .layoutImpression : .layoutClick, experiment: layout.experiment, impression: layout.id,
            receivedAt: receivedAt)
        event.feed = layout.feed
        event.variant = layout.variant
        event.component = component.map { "\(layout.feed)/\($0)" }
        event.issuedAt = Date(timeIntervalSince1970: TimeInterval(layout.issuedAt))
        event.userKey = layout.userKey.hex
        event.userKind = layout.userKey.kind.name
        event.sessionKey = layout.sessionKey?.hex
        return event
    }

    public func encoded() -> Data {
        // Only strings, integers and a date: encoding cannot fail.
        (try? StoredValueCoding.encoder().encode(self)) ?? Data()
    }

    /// Decodes and checks what the schema requires.
    public static func decode(_ data: Data) throws(RequestValidationError) -> ExperimentEvent {
        let event: ExperimentEvent
        do {
            event = try StoredValueCoding.decoder().decode(ExperimentEvent.self, from: data)
        } catch {
            throw RequestValidationError("not a braid.event/v1 message: \(error)")
        }
        guard event.schema == schemaName else { throw RequestValidationError("schema must be \(schemaName), not '\(event.schema)'") }
        guard Names.isValid(event.experiment) else { throw RequestValidationError("experiment must be \(Names.rule)") }
        guard (1...32).contains(event.impression.utf8.count), event.impression.allSatisfy(\.isHexDigit) else {
            throw RequestValidationError("impression must be 1 to 32 hex digits")
        }
        if let key = event.userKey {
            guard key.utf8.count == 16, key.allSatisfy(\.isHexDigit) else { throw RequestValidationError("user_key must be 16 hex digits") }
        }
        if let kind = event.userKind, !["none", "session", "user"].contains(kind) {
            throw RequestValidationError("user_kind must be none, session or user")
        }
        if let offset = event.offset, offset < 0 { throw RequestValidationError("offset must not be negative") }
        if let slots = event.slots, !(1...ImpressionCodec.maxSlots).contains(slots) {
            throw RequestValidationError("slots must be 1 to \(ImpressionCodec.maxSlots)")
        }
        if let age = event.snapshotAgeSeconds, !(0...ImpressionToken.maxSnapshotAgeSeconds).contains(age) {
            throw RequestValidationError("snapshot_age_seconds must be 0 to \(ImpressionToken.maxSnapshotAgeSeconds)")
        }
        if let component = event.component, FeedComponentName(component) == nil {
            throw RequestValidationError("component must be <feed>/<component>, each \(Names.rule)")
        }
        if event.type.isLayout { return try validateLayout(event) }
        let teams = event.teams ?? 2
        guard (2...ImpressionToken.maxTeams).contains(teams) else {
            throw RequestValidationError("teams must be 2 to \(ImpressionToken.maxTeams)")
        }
        if event.type == .click {
            guard let position = event.position, position >= 0, let team = event.team else {
                throw RequestValidationError("a click needs a position (>= 0) and a team")
            }
            if let index = event.teamIndex {
                guard (0..<teams).contains(index) else { throw RequestValidationError("team_index must be below teams (\(teams))") }
                guard (index == 0) == (team == .a) else { throw RequestValidationError("team_index 0 is team A, any other team B") }
            }
        }
        return event
    }

    /// A layout event names its feed, variant and user, and a click its component in that feed.
    private static func validateLayout(_ event: ExperimentEvent) throws(RequestValidationError) -> ExperimentEvent {
        guard let feed = event.feed, Names.isValid(feed), let variant = event.variant, Names.isValid(variant) else {
            throw RequestValidationError("a layout event needs a feed and a variant, each \(Names.rule)")
        }
        guard event.userKey != nil, let kind = event.userKind, kind != "none" else {
            throw RequestValidationError("a layout event needs a user_key of kind user or session")
        }
        if let key = event.sessionKey, key.utf8.count != 16 || !key.allSatisfy(\.isHexDigit) {
            throw RequestValidationError("session_key must be 16 hex digits")
        }
        if event.type == .layoutClick {
            guard let component = event.component.flatMap({ FeedComponentName($0) }), component.feed == feed else {
                throw RequestValidationError("a layout click needs component <feed>/<component> of its own feed")
            }
        }
        return event
    }
}
