import BraidContracts
import BraidCore
import Foundation

/// What the experiment planner keeps of `braid.events`: every line parsed with the decoder the
/// workers use (``ExperimentEvent/decode(_:)``), and per impression its user (the version-3
/// ``UserKey`` the event carries), its page's offset and slot count, and which of its first 64
/// positions were clicked. Lines that are not events are skipped and counted, the first few
/// kept with their line numbers, so one bad line does not cost a team its export. Pure: the
/// caller reads the file or the topic and hands over the lines.
public struct EventLog: Sendable {
    /// A line that is not a `braid.event/v1` message, and why.
    public struct Malformed: Sendable, Hashable {
        public var line: Int
        public var reason: String
    }

    struct Impression {
        var user: UserKey?
        var shown = false
        var offset: Int?
        var slots: Int?
        var credited = true
        /// Bit k: position k clicked (positions 0 to 63).
        var clicked: UInt64 = 0
    }

    /// Only this experiment's events; nil: all.
    public let experiment: String?
    /// Malformed lines kept with their reasons (the first ones).
    public static let keptMalformed = 10
    /// Positions whose clicks are kept per impression (0 to 63): what the goodness of fit counts.
    public static let clickedPositions = 64

    public private(set) var lines = 0
    public private(set) var events = 0
    /// Events of experiments other than the one asked for, and layout experiments' events.
    public private(set) var otherExperiments = 0
    public private(set) var malformedCount = 0
    public private(set) var malformed: [Malformed] = []
    var impressions: [String: Impression] = [:]
    /// Click events on position 0, and those of team B (any cached ranking).
    var firstPositionClicks = 0
    var firstPositionClicksB = 0

    public init(experiment: String? = nil) {
        self.experiment = experiment
    }

    /// Adds one line (`number` counts from 1, for the error); blank lines are ignored.
    public mutating func add(line: some Collection<UInt8>, number: Int) {
        guard line.contains(where: { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0D) }) else { return }
        lines += 1
        let event: ExperimentEvent
        do {
            event = try ExperimentEvent.decode(Data(line))
        } catch {
            malformedCount += 1
            if malformed.count < Self.keptMalformed { malformed.append(Malformed(line: number, reason: error.description)) }
            return
        }
        events += 1
        // A layout experiment's events are not a ranking experiment's: the planner fits neither.
        if event.type.isLayout || experiment.map({ event.experiment != $0 }) ?? false {
            otherExperiments += 1
            return
        }
        let user = Self.userKey(event)
        var impression = impressions[event.experiment + "/" + event.impression, default: Impression()]
        if user != nil { impression.user = user }
        switch event.type {
        case .impression:
            impression.shown = true
            impression.offset = event.offset
            impression.slots = event.slots
            impression.credited = event.isCredited
        case .click:
            if let position = event.position, position < EventLog.clickedPositions { impression.clicked |= 1 << UInt64(position) }
            if event.position == 0 {
                firstPositionClicks += 1
                firstPositionClicksB += event.team == .b ? 1 : 0
            }
        case .layoutImpression, .layoutClick:
            return
        }
        impressions[event.experiment + "/" + event.impression] = impression
    }

    /// Adds every line of `text` (split on newlines), numbering them from `firstLine`.
    public mutating func add(text: some Collection<UInt8>, firstLine: Int = 1) {
        var number = firstLine
        var start = text.startIndex
        var index = start
        while index != text.endIndex {
            if text[index] == 0x0A {
                add(line: text[start..<index], number: number)
                number += 1
                start = text.index(after: index)
            }
            index = text.index(after: index)
        }
        if start != text.endIndex { add(line: text[start..<text.endIndex], number: number) }
    }

    /// The key of a user or session; nil for events of older ids and of pages shown to nobody
    /// (all of which share the key 0, so they would pool into one "user").
    static func userKey(_ event: ExperimentEvent) -> UserKey? {
        guard let hex = event.userKey, let value = UInt64(hex, radix: 16) else { return nil }
        let kind: UserKey.Kind? = switch event.userKind {
        case "user": .user
        case "session": .session
        default: nil
        }
        return kind.map { UserKey(kind: $0, value: value) }
    }

    /// The counts the fit needs (``TrafficStatistics``).
    public var statistics: TrafficStatistics {
        var statistics = TrafficStatistics()
        statistics.firstPositionClicks = firstPositionClicks
        statistics.firstPositionClicksB = firstPositionClicksB
        var sessions: [UserKey: (sessions: Int, clickedFirst: Int)] = [:]
        for impression in impressions.values {
            guard impression.shown else { statistics.clicksWithoutImpression += 1; continue }
            guard let offset = impression.offset else { statistics.withoutOffset += 1; continue }
            guard offset == 0 else { statistics.laterPages += 1; continue }
            guard impression.credited else { statistics.withoutWindow += 1; continue }
            let first = impression.clicked & 1 != 0, second = impression.clicked & 2 != 0
            statistics.impressions += 1
            statistics.clickedFirst += first ? 1 : 0
            statistics.clickedSecondOnly += !first && second ? 1 : 0
            statistics.clickedBoth += first && second ? 1 : 0
            if let slots = impression.slots {
                let cell = min(impression.clicked.nonzeroBitCount, TrafficStatistics.clickCountCells - 1)
                statistics.clicksPerPage[slots, default: Array(repeating: 0, count: TrafficStatistics.clickCountCells)][cell] += 1
            }
            guard let user = impression.user else { statistics.anonymous += 1; continue }
            sessions[user, default: (0, 0)].sessions += 1
            sessions[user, default: (0, 0)].clickedFirst += first ? 1 : 0
        }
        for (_, user) in sessions {
            statistics.users += 1
            statistics.userSessions += user.sessions
            statistics.sessionPairs += user.sessions * (user.sessions - 1)
            statistics.clickedFirstPairs += user.clickedFirst * (user.clickedFirst - 1)
            statistics.usersWithTwoSessions += user.sessions > 1 ? 1 : 0
        }
        return statistics
    }
}

/// Counts of page-1 impressions (offset 0, credit window not empty) that the fit
/// (``UserModelFit``) is computed from, and of what was left out.
public struct TrafficStatistics: Sendable, Hashable {
    /// Page-1 impressions.
    public var impressions = 0
    /// …with a click on position 0; on position 1 and not 0; on both.
    public var clickedFirst = 0
    public var clickedSecondOnly = 0
    public var clickedBoth = 0
    /// Page-1 impressions by the page's slot count (its event's `slots`; impressions without it
    /// are left out here): how many had 0, 1, 2, 3, and 4 or more clicks on positions 0 to 63.
    /// What the goodness of fit (``ClickCountFit``) compares with the fitted model's prediction.
    public var clicksPerPage: [Int: [Int]] = [:]
    /// Cells of ``clicksPerPage``: 0, 1, 2, 3, 4 or more clicks.
    public static let clickCountCells = 5
    /// Users (version-3 user keys of kind user or session) with a page-1 impression.
    public var users = 0
    public var usersWithTwoSessions = 0
    /// Σ over users of k, of k(k − 1), and of S(S − 1), k her page-1 impressions and S those
    /// with a click on position 0.
    public var userSessions = 0
    public var sessionPairs = 0
    public var clickedFirstPairs = 0
    /// Left out: impressions with no user key (ids before version 3, or shown to nobody; used
    /// for the click model only), later pages, impression events without an offset (an older
    /// gateway's), pages without a credit window, and impressions seen only by their clicks.
    public var anonymous = 0
    public var laterPages = 0
    public var withoutOffset = 0
    public var withoutWindow = 0
    public var clicksWithoutImpression = 0
    /// Click events on position 0, and those of team B: B's share is about one half when
    /// positions 0 and 1 are a team-draft round, 0 when `interleaving.start` keeps them A's.
    public var firstPositionClicks = 0
    public var firstPositionClicksB = 0

    public init() {}
}
