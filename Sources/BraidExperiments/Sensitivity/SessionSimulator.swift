import BraidContracts
import BraidCore

/// The page an A/B session sees.
public enum ABArm: Sendable, Hashable, CaseIterable {
    /// The live ranking A alone: the control.
    case live
    /// The cached ranking B alone: the two rankings compared as rankings.
    case cached
    /// The page Braid serves with B blended in (pattern `AB` from `start`, A without B's
    /// documents): the change a team would actually ship, B being a bounded secondary ranking.
    case blended
}

/// One simulated user session: a query, one page, the click model's clicks. Interleaving
/// sessions go through Braid's own page planner, impression token and credit; A/B sessions see
/// one ``ABArm``'s page.
public struct SessionSimulator: Sendable {
    public let queries: [QueryRankings]
    public let clickModel: any ClickModel
    public let attractiveness: Attractiveness
    public let pageSize: Int
    public let interleaving: InterleavingConfiguration
    /// Per query: whether each document of B, of A without B, of A's page and of B's page is
    /// preferred (looked up once, not per session).
    private let preferredCached: [[Bool]]
    private let preferredLiveExcluding: [[Bool]]
    private let preferredLivePage: [[Bool]]
    private let preferredCachedPage: [[Bool]]
    private let preferredBlendedPage: [[Bool]]

    public init(queries: [QueryRankings], clickModel: any ClickModel, attractiveness: Attractiveness, pageSize: Int, start: Int) throws {
        precondition(!queries.isEmpty, "a simulation needs at least one query")
        self.queries = queries
        self.clickModel = clickModel
        self.attractiveness = attractiveness
        self.pageSize = pageSize
        interleaving = try InterleavingConfiguration(start: start, mode: .teamDraft)
        func marks(_ ids: [String], _ preferred: Set<String>) -> [Bool] { ids.map(preferred.contains) }
        preferredCached = queries.map { marks($0.cached, $0.preferredDocuments) }
        preferredLiveExcluding = queries.map { marks($0.liveExcludingCached, $0.preferredDocuments) }
        preferredLivePage = queries.map { marks($0.live, $0.preferredDocuments) }
        preferredCachedPage = queries.map { marks($0.cachedPage, $0.preferredDocuments) }
        let blended = try InterleavingConfiguration(start: start, pattern: [.a, .b], mode: .pattern)
        preferredBlendedPage = queries.indices.map { [preferredLiveExcluding, preferredCached] q in
            let rankings = queries[q]
            let planner = PagePlanner(configuration: blended, bCount: rankings.cached.count, aTotal: rankings.liveExcludingCachedTotal)
            return planner.plan(offset: 0, size: pageSize).slots.map { slot in
                slot.team == .a ? preferredLiveExcluding[q][slot.index] : preferredCached[q][slot.index]
            }
        }
    }

    /// Share of the live ranking's first page that the cached ranking also holds, averaged over
    /// the queries: how much the two rankings' pages overlap (the A/B arms differ less the
    /// more they do; the interleaved page never shows a document twice).
    public var livePageInCachedShare: Double {
        let shares = queries.map { query in
            query.live.isEmpty ? 0 : Double(query.live.filter(Set(query.cached).contains).count) / Double(query.live.count)
        }
        return shares.reduce(0, +) / Double(shares.count)
    }

    /// What one interleaved impression credits: with the credit window (Braid's rule) and, for
    /// comparison, with every slot of the page (as if there were no window).
    public struct InterleavedOutcome: Sendable, Hashable {
        public var window: TeamDraftOutcome
        public var everySlot: TeamDraftOutcome
    }

    /// Page 1 of a team-draft session as the gateway shows it and the click model clicks it:
    /// the team of every slot, the planner's credit window, and the positions clicked.
    public struct InterleavedPage: Sendable, Hashable {
        public var teams: [Team]
        public var creditWindow: Range<Int>
        /// 0-based, increasing.
        public var clicks: [Int]
    }

    /// Page 1 of a team-draft session of a user with this ``UserPropensity`` factor, planned
    /// and shown as the gateway does it, and clicked.
    public func interleavedPage(propensity: Double = 1, using random: inout SimulationRandom) -> InterleavedPage {
        let q = random.below(queries.count)
        let rankings = queries[q]
        let planner = PagePlanner(
            configuration: interleaving, bCount: rankings.cached.count, aTotal: rankings.liveExcludingCachedTotal, seed: random.next())
        let plan = planner.plan(offset: 0, size: pageSize)
        var teams: [Team] = []
        var appeal: [Double] = []
        teams.reserveCapacity(plan.slots.count)
        appeal.reserveCapacity(plan.slots.count)
        for slot in plan.slots {
            // A's page was fetched as the live backend would answer aRange (from 0 on page 1).
            let preferred = slot.team == .a ? preferredLiveExcluding[q][slot.index] : preferredCached[q][slot.index]
            teams.append(slot.team)
            appeal.append(attractiveness.draw(preferred: preferred, propensity: propensity, using: &random))
        }
        let clicks = clickModel.clicks(attractiveness: appeal, using: &random)
        return InterleavedPage(teams: teams, creditWindow: planner.creditWindow, clicks: clicks)
    }

    /// ``interleavedPage(propensity:using:)`` credited as the workers do it.
    public func interleavedSession(propensity: Double = 1, using random: inout SimulationRandom) -> InterleavedOutcome {
        let page = interleavedPage(propensity: propensity, using: &random)
        let token = ImpressionToken(experiment: "simulation", offset: 0, teams: page.teams, creditWindow: page.creditWindow, nonce: 0)
        var everySlot = token
        everySlot.creditWindow = token.positions
        return InterleavedOutcome(
            window: ImpressionCredit.outcome(token, clickedPositions: page.clicks),
            everySlot: ImpressionCredit.outcome(everySlot, clickedPositions: page.clicks))
    }

    /// Whether an A/B session of `arm`, of a user with this propensity factor, clicked at least once.
    public func abSession(_ arm: ABArm, propensity: Double = 1, using random: inout SimulationRandom) -> Bool {
        let q = random.below(queries.count)
        let preferred = switch arm {
        case .live: preferredLivePage[q]
        case .cached: preferredCachedPage[q]
        case .blended: preferredBlendedPage[q]
        }
        var appeal: [Double] = []
        appeal.reserveCapacity(preferred.count)
        for isPreferred in preferred { appeal.append(attractiveness.draw(preferred: isPreferred, propensity: propensity, using: &random)) }
        return !clickModel.clicks(attractiveness: appeal, using: &random).isEmpty
    }
}
