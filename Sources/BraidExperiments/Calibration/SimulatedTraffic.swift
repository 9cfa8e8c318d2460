import BraidContracts
import BraidCore
import Foundation

/// Users of known parameters (the simulation's model: ``UserPropensity``, the click model of
/// ``SensitivityParameters/clickModel``, ``Attractiveness``, `sessionsPerUser` page-1 sessions
/// each) on team-draft pages, and the events the gateway would publish to `braid.events` for
/// them; the click model is the ``CascadeClickModel`` the fit assumes by default, or one it
/// does not (``PositionBasedClickModel``, ``DependentClickModel``). Each page gets a version-3
/// impression id signed by ``ImpressionCodec`` with the user's ``UserKey``, the id is verified
/// as `POST /v1/events` verifies it, and the impression and each click become the
/// ``ExperimentEvent`` the gateway builds from it, encoded as it is on the topic. The
/// planner's round trip fits these lines back (``EventLog``, ``UserModelFit``).
public struct SimulatedTraffic: Sendable {
    public let parameters: SensitivityParameters
    public let users: Int
    public let experiment: String
    /// When the first page's id is issued (seconds since 1970); a user's sessions follow a second apart.
    public let issuedAt: Int64
    let codec: ImpressionCodec
    let simulator: SessionSimulator

    /// The random stream of the traffic's users (apart from the sensitivity simulation's).
    static let stream: UInt64 = 101

    public init(
        parameters: SensitivityParameters, queries: [QueryRankings], users: Int, codec: ImpressionCodec,
        experiment: String = "planner-round-trip", issuedAt: Int64 = 1_795_000_000
    ) throws {
        try parameters.validate()
        guard !queries.isEmpty else { throw SensitivityParameterError("no query has both live and cached results") }
        guard users >= 1 else { throw SensitivityParameterError("users must be at least 1") }
        self.parameters = parameters
        self.users = users
        self.experiment = experiment
        self.issuedAt = issuedAt
        self.codec = codec
        simulator = try SessionSimulator(
            queries: queries,
            clickModel: parameters.userClickModel,
            attractiveness: Attractiveness(range: parameters.attractiveness, margin: parameters.margin),
            pageSize: parameters.pageSize, start: parameters.start)
    }

    /// The encoded events (one `braid.event/v1` JSON message each) of the users `range`, in
    /// order: each session's impression, then its clicks. A function of the seed and the user
    /// numbers only, so chunks can be computed in parallel.
    public func events(users range: Range<Int>) throws -> [Data] {
        let propensity = UserPropensity(spread: parameters.propensitySpread)
        var lines: [Data] = []
        for user in range {
            var random = SimulationRandom(seed: parameters.seed, stream: Self.stream, index: UInt64(user))
            let key = codec.userKey(user: "user-\(user)", session: nil)
            let factor = propensity.draw(using: &random)
            for session in 0..<parameters.sessionsPerUser {
                let page = simulator.interleavedPage(propensity: factor, using: &random)
                let issued = issuedAt + Int64(session)
                let token = ImpressionToken(
                    experiment: experiment, offset: 0, teams: page.teams, creditWindow: page.creditWindow, nonce: random.next(),
                    issuedAt: issued, userKey: key)
                // As the gateway does: the client sends the id back, it is verified, then published.
                let now = Date(timeIntervalSince1970: TimeInterval(issued + 1))
                let verified = try codec.decode(codec.encode(token), now: now)
                guard let impression = ExperimentEvent.make(.impression, token: verified, receivedAt: now) else { continue }
                lines.append(impression.encoded())
                for position in page.clicks {
                    if let click = ExperimentEvent.make(.click, token: verified, position: position, receivedAt: now) {
                        lines.append(click.encoded())
                    }
                }
            }
        }
        return lines
    }
}

/// Rankings for planning without a corpus: `queries` queries whose live ranking (A) and
/// cached ranking (B) share no document, so A/B arms differ on every result.
public struct DisjointRankings: RankingSource {
    public var liveCount: Int

    public init(liveCount: Int = 1_000) {
        self.liveCount = liveCount
    }

    public static func queries(_ count: Int) -> [String] { (0..<count).map { "query-\($0)" } }

    public func live(query: String, excluding: [String], from: Int, size: Int) async throws -> (ids: [String], total: Int) {
        let excluded = Set(excluding)
        let ids = (0..<liveCount).map { "\(query)-a\($0)" }.filter { !excluded.contains($0) }
        return (Array(ids.dropFirst(from).prefix(size)), ids.count)
    }

    public func cached(query: String, size: Int) async throws -> [String] {
        (0..<size).map { "\(query)-b\($0)" }
    }
}
