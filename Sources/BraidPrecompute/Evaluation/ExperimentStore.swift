import Foundation
import BraidCore
import BraidRedis
import NIOCore

/// Team-draft credit per experiment in Redis: events in (idempotently), outcomes out.
public struct ExperimentStore: Sendable {
    public let redis: RedisClient
    public let keys: CacheKeys
    /// How long an impression can still receive clicks.
    public let impressionTTLSeconds: Int

    public init(redis: RedisClient, keys: CacheKeys, impressionTTLSeconds: Int = 7 * 86_400) {
        self.redis = redis
        self.keys = keys
        self.impressionTTLSeconds = impressionTTLSeconds
    }

    /// Applies one event. Replays change nothing: an impression counts once, a click on a
    /// position of an impression counts once. Events that are not evidence (outside the
    /// impression's credit window, ``ExperimentEvent/isCredited``) change nothing either.
    /// Returns whether anything changed.
    @discardableResult
    public func record(_ event: ExperimentEvent) async throws -> Bool {
        guard event.isCredited else { return false }
        let experiment = keys.experiment(event.experiment)
        let reply = try await redis.evalsha(
            Self.recordScript,
            keys: [experiment.counters, experiment.impression(event.impression), experiment.clickedPositions(event.impression)],
            arguments: [
                .string(event.type.rawValue), .integer(Int64(event.position ?? -1)), .string(event.team?.rawValue ?? ""),
                .integer(Int64(impressionTTLSeconds)),
            ])
        return reply == .integer(1)
    }

    public func outcome(of experiment: String) async throws -> ExperimentOutcome {
        let fields = try await redis.hgetall(keys.experiment(experiment).counters)
        func count(_ name: String) -> Int { fields[name].flatMap { Int(String(buffer: $0)) } ?? 0 }
        return ExperimentOutcome(
            experiment: experiment, impressions: count("impressions"),
            ab: PreferenceOutcome(winsA: count("wins_a"), winsB: count("wins_b"), ties: count("ties")))
    }

    /// KEYS[1] counters, KEYS[2] impression state, KEYS[3] clicked positions (one hash tag).
    /// ARGV[1] `impression` or `click`, ARGV[2] position, ARGV[3] team `A`/`B`, ARGV[4] TTL.
    /// A click also counts its impression if that event is missing; every impression starts
    /// as a tie and moves between wins_a, wins_b and ties as its clicks arrive.
    static let recordScript = RedisScript("""
        local function outcome(a, b)
          if a > b then return 'wins_a' elseif b > a then return 'wins_b' else return 'ties' end
        end
        local changed = 0
        if redis.call('HSETNX', KEYS[2], 'seen', '1') == 1 then
          redis.call('HINCRBY', KEYS[1], 'impressions', 1)
          redis.call('HINCRBY', KEYS[1], 'ties', 1)
          redis.call('EXPIRE', KEYS[2], ARGV[4])
          changed = 1
        end
        if ARGV[1] ~= 'click' then return changed end
        if redis.call('SADD', KEYS[3], ARGV[2]) == 0 then return changed end
        redis.call('EXPIRE', KEYS[3], ARGV[4])
        local a = tonumber(redis.call('HGET', KEYS[2], 'clicks_a') or '0')
        local b = tonumber(redis.call('HGET', KEYS[2], 'clicks_b') or '0')
        local before = outcome(a, b)
        if ARGV[3] == 'A' then a = a + 1 else b = b + 1 end
        redis.call('HSET', KEYS[2], 'clicks_a', a, 'clicks_b', b)
        local after = outcome(a, b)
        if before ~= after then
          redis.call('HINCRBY', KEYS[1], before, -1)
          redis.call('HINCRBY', KEYS[1], after, 1)
        end
        return 1
        """)
}

/// `GET /v1/experiments/{id}` (`ExperimentOutcome` in `Schemas/openapi.yaml`): wins, ties,
/// the sign test and the preference Δ with its 95 % interval, for A against B at the top level
/// and for every pair of teams in `pairs` (the store credits two-team experiments, so today
/// one pair, (0, 1); a multileave of k + 1 teams has k(k + 1)/2).
public struct ExperimentOutcome: Sendable, Hashable, Encodable {
    /// One pair of teams: `first` is A of the pair, `second` B; Δ > 0 means users preferred
    /// `second`.
    public struct Pair: Sendable, Hashable, Encodable {
        public var first: Int
        public var second: Int
        public var winsFirst: Int
        public var winsSecond: Int
        public var ties: Int
        public var pValue: Double
        public var preference: PreferenceEstimate

        public init(_ pair: TeamPair, _ outcome: PreferenceOutcome) {
            first = pair.first
            second = pair.second
            winsFirst = outcome.winsA
            winsSecond = outcome.winsB
            ties = outcome.ties
            pValue = outcome.pValue
            preference = outcome.preference
        }

        enum CodingKeys: String, CodingKey {
            case first, second, ties, preference
            case winsFirst = "wins_first"
            case winsSecond = "wins_second"
            case pValue = "p_value"
        }
    }

    public var experiment: String
    public var impressions: Int
    public var winsA: Int
    public var winsB: Int
    public var ties: Int
    /// Two-sided sign test over wins (ties excluded); 1 with no wins.
    public var pValue: Double
    /// Δ of B over A with its 95 % interval (``PreferenceEstimate``).
    public var preference: PreferenceEstimate
    /// Teams compared: 2 (the live ranking and one cached ranking).
    public var teams: Int
    public var pairs: [Pair]

    /// A two-team experiment: A (team 0) against B (team 1).
    public init(experiment: String, impressions: Int, ab: PreferenceOutcome) {
        self.experiment = experiment
        self.impressions = impressions
        winsA = ab.winsA
        winsB = ab.winsB
        ties = ab.ties
        pValue = ab.pValue
        preference = ab.preference
        teams = 2
        pairs = [Pair(TeamPair(0, 1), ab)]
    }

    enum CodingKeys: String, CodingKey {
        case experiment, impressions, ties, preference, teams, pairs
        case winsA = "wins_a"
        case winsB = "wins_b"
        case pValue = "p_value"
    }
}
