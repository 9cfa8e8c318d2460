import BraidCore

/// What one team-draft page showed: the experiment, where the page starts, the team of each
/// of its slots, and which of them are evidence. Handed to clients as the page's
/// `impression_id` (see ``ImpressionCodec``) and sent back with impression and click events,
/// so click credit needs no server-side record of the page.
///
/// Teams are numbers: 0 is the live ranking (A), 1 the cached ranking (B) of two-ranking
/// interleaving, or 1…4 the cached rankings of a multileave in their configured order.
public struct ImpressionToken: Sendable, Hashable {
    /// The live ranking and up to four cached ones.
    public static let maxTeams = 1 + MultileaveConfiguration.maxCachedRankings

    public var experiment: String
    /// Global position of the page's first slot.
    public var offset: Int
    /// Team of every slot, in position order.
    public var slotTeams: [Int]
    /// Teams compared by the impression (2 for interleaving, up to 5 for a multileave): every
    /// pair of them gets a win or a tie from it.
    public var teamCount: Int
    /// The page's positions inside the list's credit window (full team-draft rounds,
    /// ``PagePlanner/creditWindow``): only clicks there are evidence. Nil for ids of format
    /// version 1, which do not carry it: they are accepted, but nothing they show is
    /// credited, because nothing tells their A-only slots from the drafted ones.
    public var creditWindow: Range<Int>?
    /// Makes every impression unique (two users seeing the same page are two impressions).
    public var nonce: UInt64
    /// When the gateway issued the id (seconds since 1970, its clock): events are accepted
    /// within ``ImpressionValidity`` of it. Nil for ids of format versions 1 and 2, which carry
    /// no time and are refused as evidence (``ImpressionValidity``).
    public var issuedAt: Int64?
    /// Whom the page was shown to (``UserKey``). Nil for versions 1 and 2.
    public var userKey: UserKey?
    /// How old the snapshot of team 1 (B, or a multileave's first cached ranking) was when the
    /// page was served, in seconds (at most 65,535: ``ImpressionCodec`` keeps two bytes, and the
    /// oldest ``SnapshotAge`` bucket starts at 6 hours). Nil for ids of versions 1 to 3.
    public var snapshotAgeSeconds: Int?
    /// The feed component the page was served in (an `interleaved_recipes` list), nil for a
    /// search page: the worker credits the experiment and, besides, this component
    /// (`surfaces` of the outcome). Kept only with `issuedAt`: a version-5 id is a version-4 id
    /// with the component after the age, a version-6 id a version-3 id with it (a multileave
    /// page whose first cached ranking had no snapshot has no age).
    public var component: FeedComponentName?

    /// Format version the codec writes for this token: 5 when it names a feed component and
    /// carries its snapshot's age, 6 when it names one without an age, 4 when it carries its
    /// snapshot's age (and its issue time), 3 when it carries its issue time and user key, 2
    /// otherwise (tests of old ids), 1 when decoded from a version-1 id.
    public var formatVersion: UInt8 {
        guard issuedAt != nil else { return creditWindow == nil ? 1 : 2 }
        if component != nil { return snapshotAgeSeconds != nil ? 5 : 6 }
        return snapshotAgeSeconds != nil ? 4 : 3
    }

    /// The largest age an id carries.
    public static let maxSnapshotAgeSeconds = Int(UInt16.max)

    /// - Parameters:
    ///   - slotTeams: team of every slot; each below `teamCount`, at most
    ///     ``ImpressionCodec/maxSlots`` of them.
    ///   - teamCount: 2 to ``maxTeams``.
    ///   - creditWindow: the list's credit window; kept as its overlap with the page.
    ///   - issuedAt: when it is issued; with `userKey`, what makes it a version-3 id. Nil only
    ///     to build old ids (tests).
    ///   - snapshotAgeSeconds: the age of team 1's snapshot (clamped to 0…65,535); kept only
    ///     with `issuedAt` (a version-4 id).
    ///   - component: the feed component showing the page; kept only with `issuedAt`.
    public init(
        experiment: String, offset: Int, slotTeams: [Int], teamCount: Int, creditWindow: Range<Int>, nonce: UInt64,
        issuedAt: Int64? = nil, userKey: UserKey? = nil, snapshotAgeSeconds: Int? = nil, component: FeedComponentName? = nil
    ) {
        precondition((2...Self.maxTeams).contains(teamCount), "an impression compares 2 to \(Self.maxTeams) teams")
        precondition(slotTeams.allSatisfy { (0..<teamCount).contains($0) }, "every slot's team must be below teamCount")
        self.experiment = experiment
        self.offset = offset
        self.slotTeams = slotTeams
        self.teamCount = teamCount
        self.creditWindow = Self.clamp(creditWindow, offset: offset, count: slotTeams.count)
        self.nonce = nonce
        self.issuedAt = issuedAt
        self.userKey = issuedAt == nil ? nil : (userKey ?? UserKey.nobody)
        self.snapshotAgeSeconds = issuedAt == nil ? nil : snapshotAgeSeconds.map { min(max(0, $0), Self.maxSnapshotAgeSeconds) }
        self.component = issuedAt == nil ? nil : component
    }

    /// A two-ranking team-draft page: A is team 0, B team 1.
    public init(
        experiment: String, offset: Int, teams: [Team], creditWindow: Range<Int>, nonce: UInt64, issuedAt: Int64? = nil,
        userKey: UserKey? = nil, snapshotAgeSeconds: Int? = nil, component: FeedComponentName? = nil
    ) {
        self.init(
            experiment: experiment, offset: offset, slotTeams: teams.map { $0 == .a ? 0 : 1 }, teamCount: 2,
            creditWindow: creditWindow, nonce: nonce, issuedAt: issuedAt, userKey: userKey, snapshotAgeSeconds: snapshotAgeSeconds,
            component: component)
    }

    /// A two-ranking page with every slot credited, including A-only slots before `start` and
    /// slots after a team ran out: for callers that do not pass ``PagePlanner/creditWindow``
    /// (deprecated, since slots outside the window are not evidence).
    @available(*, deprecated, message: "pass the planner's creditWindow: slots outside it are not evidence")
    public init(experiment: String, offset: Int, teams: [Team], nonce: UInt64) {
        self.init(experiment: experiment, offset: offset, teams: teams, creditWindow: offset..<(offset + teams.count), nonce: nonce)
    }

    /// Decoded version-1 ids: no credit window.
    init(version1 experiment: String, offset: Int, slotTeams: [Int], nonce: UInt64) {
        self.experiment = experiment
        self.offset = offset
        self.slotTeams = slotTeams
        self.teamCount = 2
        self.creditWindow = nil
        self.nonce = nonce
        self.issuedAt = nil
        self.userKey = nil
        self.snapshotAgeSeconds = nil
        self.component = nil
    }

    /// Positions the page showed.
    public var positions: Range<Int> { offset..<(offset + slotTeams.count) }

    /// The team shown at a global position, or nil when the page did not show it.
    public func teamIndex(at position: Int) -> Int? {
        positions.contains(position) ? slotTeams[position - offset] : nil
    }

    /// Whether a click on `position` is evidence: shown by the page and inside its window.
    public func isCredited(at position: Int) -> Bool {
        creditWindow?.contains(position) ?? false
    }

    /// Two-ranking view: the team shown at a global position (nil when not shown, or when the
    /// impression is a multileave, whose teams are not A and B).
    public func team(at position: Int) -> Team? {
        guard teamCount == 2, let index = teamIndex(at: position) else { return nil }
        return index == 0 ? .a : .b
    }

    /// Two-ranking view of every slot (team 0 is A, any other B).
    @available(*, deprecated, message: "use slotTeams, which also holds multileave teams")
    public var teams: [Team] { slotTeams.map { $0 == 0 ? .a : .b } }

    /// Stable id of the impression (the nonce as hex), for storage keys.
    public var id: String { String(nonce, radix: 16) }

    /// The window's overlap with the page; an empty overlap is `offset..<offset`, so equal
    /// tokens stay equal after a round trip through the codec.
    static func clamp(_ window: Range<Int>, offset: Int, count: Int) -> Range<Int> {
        let lower = max(window.lowerBound, offset)
        let upper = min(window.upperBound, offset + count)
        return lower < upper ? lower..<upper : offset..<offset
    }
}

public enum ImpressionTokenError: Error, Sendable, Hashable, CustomStringConvertible {
    case malformed
    case badSignature
    /// Signed by us, but in a format this release does not know (a newer gateway's).
    case unsupportedVersion(UInt8)

    public var description: String {
        switch self {
        case .malformed: "the impression id is malformed"
        case .badSignature: "the impression id's signature is invalid"
        case .unsupportedVersion(let version): "the impression id has format version \(version), which this release cannot read"
        }
    }
}
