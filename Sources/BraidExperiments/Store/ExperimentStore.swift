import Foundation
import BraidContracts
import BraidCore
import BraidRedis
import NIOCore

/// Team-draft credit per experiment in Redis: events in (idempotently), outcomes out.
public struct ExperimentStore: Sendable {
    public let redis: RedisClient
    public let keys: CacheKeys
    /// How long an impression's state is kept after its first event (deleted by the
    /// retention sweep, not by a Redis TTL, so that eviction cannot take it).
    public let impressionTTLSeconds: Int

    public init(redis: RedisClient, keys: CacheKeys, impressionTTLSeconds: Int = ImpressionValidity.impressionStateTTLSeconds) {
        self.redis = redis
        self.keys = keys
        self.impressionTTLSeconds = impressionTTLSeconds
    }

    /// What applying one event did.
    public enum Credit: String, Sendable, Hashable {
        /// It counted: a new impression, or a first click on a position.
        case credited
        /// Seen before (a client's retry, a replay, Kafka redelivering it): counted in the
        /// experiment's `duplicates`, credited nothing.
        case duplicate
        /// Not evidence (``ExperimentEvent/isCredited`` false, or a team the impression does
        /// not have): nothing changed.
        case notEvidence = "not_evidence"
        /// Read after its impression's state may have expired
        /// (``ImpressionValidity/isCreditable(issuedAt:now:)``): counted in `late`, credited nothing.
        case late
    }

    /// Applies one event. Replays change nothing: an impression counts once, a click on a
    /// position of an impression counts once. Events that are not evidence (outside the
    /// impression's credit window, ``ExperimentEvent/isCredited``) change nothing either.
    /// Returns whether anything changed.
    @discardableResult
    public func record(_ event: ExperimentEvent) async throws -> Bool {
        try await apply(event) == .credited
    }

    /// Applies one event and says what it did (``Credit``). `now` is the worker's clock.
    public func apply(_ event: ExperimentEvent, now: Date = Date()) async throws -> Credit {
        guard event.isCredited else { return .notEvidence }
        let experiment = keys.experiment(event.experiment)
        if let issuedAt = event.issuedAt,
            !ImpressionValidity.isCreditable(issuedAt: Int64(issuedAt.timeIntervalSince1970), now: Int64(now.timeIntervalSince1970))
        {
            try await redis.hincrby(experiment.counters, field: "late", by: 1)
            return .late
        }
        let team = event.teamIndex ?? (event.team == .b ? 1 : 0)
        let reply = try await redis.evalsha(
            Self.recordScript,
            keys: [experiment.counters, experiment.impression(event.impression), experiment.clickedPositions(event.impression)],
            arguments: [
                .string(event.type.rawValue), .integer(Int64(event.position ?? -1)), .integer(Int64(team)),
                .integer(Int64(now.timeIntervalSince1970) + Int64(impressionTTLSeconds)), .integer(Int64(event.teams ?? 2)),
                .string(SnapshotAge(seconds: event.snapshotAgeSeconds).rawValue), .string(event.component ?? Self.searchSurface),
            ])
        switch reply {
        case .integer(1): return .credited
        case .integer(2): return .duplicate
        default: return .notEvidence
        }
    }

    /// The surface of impressions from search pages (a feed component's is `<feed>/<component>`).
    public static let searchSurface = "search"
    static let surfacePrefix = "surface:"

    /// Why the gateway refused events of an experiment (`rejected` in the outcome).
    public static let rejectionReasons = ["expired", "from_the_future", "foreign_user", "outdated"]

    /// Adds `count` events of `experiment` the gateway refused for `reason` (one of
    /// ``rejectionReasons``), so the experiment's owner sees them on the outcome.
    public func countRejected(experiment: String, reason: String, count: Int) async throws {
        try await redis.hincrby(keys.experiment(experiment).counters, field: "rejected:\(reason)", by: count)
    }

    public func outcome(of experiment: String) async throws -> ExperimentOutcome {
        let fields = try await redis.hgetall(keys.experiment(experiment).counters)
        func count(_ name: String) -> Int { fields[name].flatMap { Int(String(buffer: $0)) } ?? 0 }
        let teams = min(max(2, count("teams")), ImpressionToken.maxTeams)
        let pairs = TeamPair.all(teamCount: teams).map { pair in
            let names = Self.counterNames(pair)
            return (pair, PreferenceOutcome(winsA: count(names.first), winsB: count(names.second), ties: count(names.ties)))
        }
        var outcome = ExperimentOutcome(experiment: experiment, impressions: count("impressions"), teams: teams, pairs: pairs)
        outcome.duplicates = count("duplicates")
        outcome.late = count("late")
        outcome.rejected = Dictionary(uniqueKeysWithValues: Self.rejectionReasons.map { ($0, count("rejected:\($0)")) })
        for (name, value) in fields where name.hasPrefix(Self.lookPrefix) {
            guard let (pair, look) = Self.parseLookField(name), let wins = Self.parseLookValue(String(buffer: value)) else { continue }
            outcome.looks[pair, default: []].append(ExperimentLook(look: look, winsFirst: wins.0, winsSecond: wins.1))
        }
        for pair in outcome.looks.keys { outcome.looks[pair]?.sort { $0.look < $1.look } }
        let surfaceFields = fields.filter { $0.key.hasPrefix(Self.surfacePrefix) }.mapValues { Int(String(buffer: $0)) ?? 0 }
        for index in outcome.pairs.indices {
            let pair = TeamPair(outcome.pairs[index].first, outcome.pairs[index].second)
            outcome.pairs[index].freshness = Self.freshness(of: pair, count: count)
            outcome.pairs[index].surfaces = Self.surfaces(of: pair, surfaceFields)
        }
        outcome.freshness = Self.freshness(of: TeamPair(0, 1), count: count)
        outcome.surfaces = Self.surfaces(of: TeamPair(0, 1), surfaceFields)
        return outcome
    }

    /// A pair's `age:<bucket>:<counter>` fields (counters named as in ``counterNames(_:)``), one
    /// entry per ``SnapshotAge`` in order. Impressions of (0, 1) have a counter of their own;
    /// the other pairs' are their wins and ties, since each impression starts as a tie of
    /// every pair.
    static func freshness(of pair: TeamPair, count: (String) -> Int) -> [FreshnessBucket] {
        let names = counterNames(pair)
        return SnapshotAge.allCases.map { age in
            let prefix = "age:\(age.rawValue):"
            let outcome = PreferenceOutcome(
                winsA: count(prefix + names.first), winsB: count(prefix + names.second), ties: count(prefix + names.ties))
            let impressions = pair == TeamPair(0, 1) ? count(prefix + "impressions") : outcome.impressions
            return FreshnessBucket(age: age, impressions: impressions, outcome: outcome)
        }
    }

    /// A pair's `surface:<surface>:<counter>` fields (counters as in ``freshness(of:count:)``)
    /// as one entry per surface that has any: search first, then the feed components by name.
    /// Fields that do not parse are skipped. A surface has no `:`, so the first one ends it.
    static func surfaces(of pair: TeamPair, _ fields: [String: Int]) -> [SurfaceCredit] {
        let names = counterNames(pair)
        let counters = [names.first, names.second, names.ties] + (pair == TeamPair(0, 1) ? ["impressions"] : [])
        let surfaces = Set(fields.keys.compactMap { name -> String? in
            let rest = name.dropFirst(surfacePrefix.count)
            guard let colon = rest.firstIndex(of: ":"), counters.contains(String(rest[rest.index(after: colon)...])) else { return nil }
            let surface = String(rest[..<colon])
            return surface == searchSurface || FeedComponentName(surface) != nil ? surface : nil
        })
        // Search first, then the components by name.
        return surfaces.sorted { ($0 == searchSurface ? "" : $0) < ($1 == searchSurface ? "" : $1) }.map { surface in
            func count(_ counter: String) -> Int { fields["\(surfacePrefix)\(surface):\(counter)"] ?? 0 }
            let outcome = PreferenceOutcome(winsA: count(names.first), winsB: count(names.second), ties: count(names.ties))
            let impressions = pair == TeamPair(0, 1) ? count("impressions") : outcome.impressions
            return SurfaceCredit(surface: surface, impressions: impressions, outcome: outcome)
        }
    }

    /// Records looks of the sequential test (`look:<first>-<second>:<k>` = `<wins first> <wins
    /// second>` in the experiment's counters hash, so ``outcome(of:)`` reads them with the
    /// counters, no extra round trip). A look already recorded is kept (two gateways reading at
    /// once record it once); returns what is stored for each, which the caller must use.
    public func recordLooks(experiment: String, _ looks: [(pair: TeamPair, look: ExperimentLook)]) async throws -> [ExperimentLook] {
        guard !looks.isEmpty else { return [] }
        var arguments: [RESPArgument] = []
        for (pair, look) in looks { arguments += [.string(Self.lookField(pair, look: look.look)), .string("\(look.winsFirst) \(look.winsSecond)")] }
        let reply = try await redis.evalsha(Self.recordLooksScript, keys: [keys.experiment(experiment).counters], arguments: arguments)
        guard case .array(let values?) = reply, values.count == looks.count else { throw LookRecordError(reply: "\(reply)") }
        return try zip(looks, values).map { entry, value in
            guard let text = value.string, let wins = Self.parseLookValue(text) else { throw LookRecordError(reply: "\(reply)") }
            return ExperimentLook(look: entry.look.look, winsFirst: wins.0, winsSecond: wins.1)
        }
    }

    static let lookPrefix = "look:"

    /// The look script answered something other than the stored looks.
    struct LookRecordError: Error, CustomStringConvertible {
        var reply: String
        var description: String { "unexpected reply recording sequential looks: \(reply)" }
    }

    static func lookField(_ pair: TeamPair, look: Int) -> String { "\(lookPrefix)\(pair):\(look)" }

    static func parseLookField(_ name: String) -> (TeamPair, Int)? {
        let parts = name.dropFirst(lookPrefix.count).split(separator: ":")
        guard parts.count == 2, let look = Int(parts[1]) else { return nil }
        let teams = parts[0].split(separator: "-")
        guard teams.count == 2, let first = Int(teams[0]), let second = Int(teams[1]), first >= 0, first < second,
            second < ImpressionToken.maxTeams
        else { return nil }
        return (TeamPair(first, second), look)
    }

    static func parseLookValue(_ text: String) -> (Int, Int)? {
        let parts = text.split(separator: " ")
        guard parts.count == 2, let first = Int(parts[0]), let second = Int(parts[1]) else { return nil }
        return (first, second)
    }

    /// KEYS[1] counters; ARGV field, value, field, value…: HSETNX each, return each field's value.
    static let recordLooksScript = RedisScript("""
        local out = {}
        for i = 1, #ARGV, 2 do
          redis.call('HSETNX', KEYS[1], ARGV[i], ARGV[i + 1])
          out[#out + 1] = redis.call('HGET', KEYS[1], ARGV[i])
        end
        return out
        """)

    /// Counter fields of a pair: `wins_a`, `wins_b`, `ties` for (0, 1), the names of two-team
    /// credit, `<i>-<j>:first`, `:second`, `:ties` for the others. Mirrors the script's `field`.
    static func counterNames(_ pair: TeamPair) -> (first: String, second: String, ties: String) {
        if pair == TeamPair(0, 1) { return ("wins_a", "wins_b", "ties") }
        return ("\(pair):first", "\(pair):second", "\(pair):ties")
    }

    /// KEYS[1] counters, KEYS[2] impression state, KEYS[3] clicked positions (one hash tag).
    /// ARGV[1] `impression` or `click`, ARGV[2] position, ARGV[3] team index, ARGV[4] the
    /// state's expiry (seconds since 1970: no Redis TTL, ``CacheKeys/RetainedRecord``), ARGV[5] teams of the impression. Team-draft multileave credit (``PairwiseCredit``): an
    /// impression starts as a tie of every pair of its teams; each first click on a position
    /// adds to its team's clicks and moves the pairs whose outcome changes. A click also
    /// counts its impression if that event is missing. `teams` in the counters is the most
    /// teams any impression compared. Team 0 and 1 clicks keep the names of two-team credit
    /// (`clicks_a`, `clicks_b`), so impressions in flight across an upgrade stay consistent.
    /// ARGV[6] is the impression's ``SnapshotAge`` bucket: a new impression keeps it in its
    /// state (`age`) and counts in `age:<bucket>:impressions` and, for every pair, in
    /// `age:<bucket>:<pair's ties field>`; a click that moves a pair moves the same counters of
    /// its impression's bucket (an impression whose state has no `age`, credited by a worker
    /// that did not record one, counts in none).
    /// ARGV[7] is the impression's surface (`search`, or the feed component `<feed>/<component>`):
    /// kept in its state (`surface`) and counted like the age bucket, in `surface:<surface>:…`.
    /// Pairs other than (0, 1) got age and surface counters later: `pair_slices` in the state
    /// marks the impressions that started them, and clicks on older ones leave them alone (so
    /// no such counter goes below zero).
    /// Returns 1 when something was credited, 2 for a duplicate (an impression event seen
    /// before, or a click on a position already clicked: `duplicates` counts it), 0 otherwise.
    static let recordScript = RedisScript("""
        local function field(i, j, outcome)
          if i == 0 and j == 1 then
            if outcome == 'first' then return 'wins_a' elseif outcome == 'second' then return 'wins_b' else return 'ties' end
          end
          return i .. '-' .. j .. ':' .. outcome
        end
        local function clicksField(t)
          if t == 0 then return 'clicks_a' elseif t == 1 then return 'clicks_b' else return 'clicks_' .. t end
        end
        local function outcome(a, b)
          if a > b then return 'first' elseif b > a then return 'second' else return 'ties' end
        end
        local changed = 0
        local teams = tonumber(ARGV[5])
        if redis.call('HSETNX', KEYS[2], 'seen', '1') == 1 then
          redis.call('HSET', KEYS[2], 'teams', teams, 'age', ARGV[6], 'surface', ARGV[7], 'pair_slices', '1')
          redis.call('HINCRBY', KEYS[1], 'impressions', 1)
          redis.call('HINCRBY', KEYS[1], 'age:' .. ARGV[6] .. ':impressions', 1)
          redis.call('HINCRBY', KEYS[1], 'age:' .. ARGV[6] .. ':ties', 1)
          redis.call('HINCRBY', KEYS[1], 'surface:' .. ARGV[7] .. ':impressions', 1)
          redis.call('HINCRBY', KEYS[1], 'surface:' .. ARGV[7] .. ':ties', 1)
          for i = 0, teams - 2 do
            for j = i + 1, teams - 1 do
              redis.call('HINCRBY', KEYS[1], field(i, j, 'ties'), 1)
              if i > 0 or j > 1 then
                redis.call('HINCRBY', KEYS[1], 'age:' .. ARGV[6] .. ':' .. field(i, j, 'ties'), 1)
                redis.call('HINCRBY', KEYS[1], 'surface:' .. ARGV[7] .. ':' .. field(i, j, 'ties'), 1)
              end
            end
          end
          local known = tonumber(redis.call('HGET', KEYS[1], 'teams') or '2')
          if teams > known then redis.call('HSET', KEYS[1], 'teams', teams) end
          redis.call('HSET', KEYS[2], 'e', ARGV[4])
          changed = 1
        else
          teams = tonumber(redis.call('HGET', KEYS[2], 'teams') or '2')
          if ARGV[1] ~= 'click' then
            redis.call('HINCRBY', KEYS[1], 'duplicates', 1)
            return 2
          end
        end
        if ARGV[1] ~= 'click' then return changed end
        local team = tonumber(ARGV[3])
        if team < 0 or team >= teams then return changed end
        if redis.call('SADD', KEYS[3], ARGV[2]) == 0 then
          redis.call('HINCRBY', KEYS[1], 'duplicates', 1)
          return 2
        end
        local clicks = {}
        local age = redis.call('HGET', KEYS[2], 'age')
        local surface = redis.call('HGET', KEYS[2], 'surface')
        local sliced = redis.call('HGET', KEYS[2], 'pair_slices')
        for t = 0, teams - 1 do clicks[t] = tonumber(redis.call('HGET', KEYS[2], clicksField(t)) or '0') end
        for other = 0, teams - 1 do
          if other ~= team then
            local i = math.min(team, other)
            local j = math.max(team, other)
            local before = outcome(clicks[i], clicks[j])
            local afterI = clicks[i]
            local afterJ = clicks[j]
            if team == i then afterI = afterI + 1 else afterJ = afterJ + 1 end
            local after = outcome(afterI, afterJ)
            if before ~= after then
              redis.call('HINCRBY', KEYS[1], field(i, j, before), -1)
              redis.call('HINCRBY', KEYS[1], field(i, j, after), 1)
              if (i == 0 and j == 1) or sliced then
                if age then
                  redis.call('HINCRBY', KEYS[1], 'age:' .. age .. ':' .. field(i, j, before), -1)
                  redis.call('HINCRBY', KEYS[1], 'age:' .. age .. ':' .. field(i, j, after), 1)
                end
                if surface then
                  redis.call('HINCRBY', KEYS[1], 'surface:' .. surface .. ':' .. field(i, j, before), -1)
                  redis.call('HINCRBY', KEYS[1], 'surface:' .. surface .. ':' .. field(i, j, after), 1)
                end
              end
            end
          end
        end
        redis.call('HSET', KEYS[2], clicksField(team), clicks[team] + 1)
        return 1
        """)
}

/// Credit of teams 0 and 1 among the impressions whose snapshot was of one age
/// (`freshness` of `ExperimentOutcome`): whether B loses because it is stale. In a pair's
/// `freshness`, the pair's two teams (`wins_a` its first), by the same age: team 1's snapshot.
public struct FreshnessBucket: Sendable, Hashable, Encodable {
    public var age: SnapshotAge
    public var impressions: Int
    public var winsA: Int
    public var winsB: Int
    public var ties: Int
    public var preference: PreferenceEstimate

    public init(age: SnapshotAge, impressions: Int, outcome: PreferenceOutcome) {
        self.age = age
        self.impressions = impressions
        winsA = outcome.winsA
        winsB = outcome.winsB
        ties = outcome.ties
        preference = outcome.preference
    }

    enum CodingKeys: String, CodingKey {
        case impressions, ties, preference
        case age = "bucket"
        case winsA = "wins_a"
        case winsB = "wins_b"
        case fromSeconds = "from_seconds"
        case toSeconds = "to_seconds"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(age, forKey: .age)
        try container.encode(age.seconds?.from, forKey: .fromSeconds)
        try container.encode(age.seconds?.to, forKey: .toSeconds)
        try container.encode(impressions, forKey: .impressions)
        try container.encode(winsA, forKey: .winsA)
        try container.encode(winsB, forKey: .winsB)
        try container.encode(ties, forKey: .ties)
        try container.encode(preference, forKey: .preference)
    }
}

/// Credit of teams 0 and 1 among the impressions of one surface (`surfaces` of
/// `ExperimentOutcome`; in a pair's `surfaces`, the pair's two teams, `wins_a` its first):
/// search pages, or one feed component's interleaved list.
public struct SurfaceCredit: Sendable, Hashable, Encodable {
    /// `search`, or `<feed>/<component>`.
    public var surface: String
    public var impressions: Int
    public var winsA: Int
    public var winsB: Int
    public var ties: Int
    public var pValue: Double
    public var preference: PreferenceEstimate

    public init(surface: String, impressions: Int, outcome: PreferenceOutcome) {
        self.surface = surface
        self.impressions = impressions
        winsA = outcome.winsA
        winsB = outcome.winsB
        ties = outcome.ties
        pValue = outcome.pValue
        preference = outcome.preference
    }

    enum CodingKeys: String, CodingKey {
        case surface, impressions, ties, preference
        case winsA = "wins_a"
        case winsB = "wins_b"
        case pValue = "p_value"
    }
}

/// One recorded look of a pair's sequential test: its number and the pair's wins then.
public struct ExperimentLook: Sendable, Hashable {
    public var look: Int
    public var winsFirst: Int
    public var winsSecond: Int

    public init(look: Int, winsFirst: Int, winsSecond: Int) {
        self.look = look
        self.winsFirst = winsFirst
        self.winsSecond = winsSecond
    }
}

/// A pair's sequential reading (`SequentialReading` in `Schemas/openapi.yaml`): the decision,
/// the always-valid p-value, the confidence sequence of the net preference, the looks taken.
public struct SequentialSummary: Sendable, Hashable, Encodable {
    /// `A` (the pair's first team), `B` (its second), `no difference`, `keep going`.
    public var decision: String
    public var pValue: Double
    /// (wins_second − wins_first) / decided ± the boundary times its standard error; nil before the first look.
    public var interval: ClosedRange<Double>?
    /// Looks taken (the latest one's number) and the decided sessions at it.
    public var look: Int
    public var decidedSessions: Int
    public var decidedAtLook: Int?
    /// With `no difference`: the margin the design rules out (a net preference this large
    /// would have been found with the design's power).
    public var bound: Double?

    public init(decision: String, pValue: Double, interval: ClosedRange<Double>?, look: Int, decidedSessions: Int, decidedAtLook: Int?, bound: Double?) {
        self.decision = decision
        self.pValue = pValue
        self.interval = interval
        self.look = look
        self.decidedSessions = decidedSessions
        self.decidedAtLook = decidedAtLook
        self.bound = bound
    }

    enum CodingKeys: String, CodingKey {
        case decision, interval, look, bound
        case pValue = "p_value"
        case decidedSessions = "decided_sessions"
        case decidedAtLook = "decided_at_look"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(decision, forKey: .decision)
        try container.encode(pValue, forKey: .pValue)
        try container.encodeInterval(interval, forKey: .interval)
        try container.encode(look, forKey: .look)
        try container.encode(decidedSessions, forKey: .decidedSessions)
        try container.encode(decidedAtLook, forKey: .decidedAtLook)
        try container.encode(bound, forKey: .bound)
    }
}

/// The experiment's sequential test (`sequential` of `ExperimentOutcome`): the design it was
/// read with, how the pairs' errors are controlled, and the reading of teams 0 and 1.
public struct SequentialOutcome: Sendable, Hashable, Encodable {
    public struct Design: Sendable, Hashable, Encodable {
        public var margin: Double
        public var power: Double
        public var alpha: Double
        public var lookEvery: Int
        public var looks: Int
        public var maxSessions: Int
        public var fixedSessions: Int

        public init(margin: Double, power: Double, alpha: Double, lookEvery: Int, looks: Int, maxSessions: Int, fixedSessions: Int) {
            self.margin = margin
            self.power = power
            self.alpha = alpha
            self.lookEvery = lookEvery
            self.looks = looks
            self.maxSessions = maxSessions
            self.fixedSessions = fixedSessions
        }

        enum CodingKeys: String, CodingKey {
            case margin, power, alpha, looks
            case lookEvery = "look_every"
            case maxSessions = "max_sessions"
            case fixedSessions = "fixed_sessions"
        }
    }

    public var design: Design
    /// `none` for two teams; `holm` under multileaving (the pairs' decisions by Holm's procedure).
    public var correction: String
    public var reading: SequentialSummary

    public init(design: Design, correction: String, reading: SequentialSummary) {
        self.design = design
        self.correction = correction
        self.reading = reading
    }

    enum CodingKeys: String, CodingKey { case design, correction }

    public func encode(to encoder: any Encoder) throws {
        try reading.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(design, forKey: .design)
        try container.encode(correction, forKey: .correction)
    }
}

/// `GET /v1/experiments/{id}` (`ExperimentOutcome` in `Schemas/openapi.yaml`): wins, ties,
/// the sign test and the preference Δ with its 95 % interval, for A against B (teams 0 and 1)
/// at the top level and for every pair of teams in `pairs` (one for two teams, k(k + 1)/2 for
/// a multileave of k + 1), each pair with its own `freshness` and `surfaces`.
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
        /// The pair's sequential reading (under multileaving, decided by Holm's procedure).
        public var sequential: SequentialSummary?
        /// The pair's credit by snapshot age, as the outcome's `freshness` for (0, 1); `wins_a`
        /// is `first`'s, `wins_b` `second`'s.
        public var freshness: [FreshnessBucket] = []
        /// The pair's credit by surface, as the outcome's `surfaces` for (0, 1).
        public var surfaces: [SurfaceCredit] = []

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
            case first, second, ties, preference, sequential, freshness, surfaces
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
    /// Teams compared: 2, or up to 5 for a multileave (0 is the live ranking).
    public var teams: Int
    public var pairs: [Pair]
    /// Events seen before and credited nothing (retries, replays, Kafka redeliveries).
    public var duplicates = 0
    /// Events a worker read after their impression's state may have expired; credited nothing.
    public var late = 0
    /// Events the gateway refused, by reason (``ExperimentStore/rejectionReasons``): outside the
    /// id's window (`expired`, `from_the_future`), sent by a caller other than the id's user
    /// (`foreign_user`), or an id of format version 1 or 2 (`outdated`). Forged ids are not
    /// here: nothing in them can be trusted to name an experiment.
    public var rejected: [String: Int] = [:]
    /// Credit of A against B by the age of B's snapshot when the page was served, one entry per
    /// ``SnapshotAge`` in order.
    public var freshness: [FreshnessBucket] = []
    /// Credit of A against B by where the pages were shown: `search`, then each feed component
    /// whose interleaved list is traffic of this experiment. Impressions credited by a worker
    /// that did not record surfaces count in none.
    public var surfaces: [SurfaceCredit] = []
    /// The sequential test (``SequentialOutcome``); filled by the gateway, which knows the design.
    public var sequential: SequentialOutcome?
    /// The sequential test's recorded looks per pair, oldest first (not part of the JSON).
    public var looks: [TeamPair: [ExperimentLook]] = [:]
    /// When the id names a layout experiment, its outcome (the interleaving fields then count
    /// nothing: a layout experiment has no interleaved pages).
    public var layout: LayoutExperimentOutcome?

    /// - Parameter pairs: the outcome of every pair of `teams` teams; (0, 1) fills the
    ///   top-level A-against-B fields.
    public init(experiment: String, impressions: Int, teams: Int, pairs: [(TeamPair, PreferenceOutcome)]) {
        let ab = pairs.first { $0.0 == TeamPair(0, 1) }?.1 ?? PreferenceOutcome(winsA: 0, winsB: 0, ties: 0)
        self.experiment = experiment
        self.impressions = impressions
        winsA = ab.winsA
        winsB = ab.winsB
        ties = ab.ties
        pValue = ab.pValue
        preference = ab.preference
        self.teams = teams
        self.pairs = pairs.sorted { $0.0 < $1.0 }.map { Pair($0.0, $0.1) }
    }

    enum CodingKeys: String, CodingKey {
        case experiment, impressions, ties, preference, teams, pairs, duplicates, late, rejected, sequential, freshness, surfaces, layout
        case winsA = "wins_a"
        case winsB = "wins_b"
        case pValue = "p_value"
    }
}

extension KeyedEncodingContainer {
    /// An interval as `{"lower": …, "upper": …}`, or null.
    mutating func encodeInterval(_ interval: ClosedRange<Double>?, forKey key: Key) throws {
        guard let interval else { return try encodeNil(forKey: key) }
        var nested = nestedContainer(keyedBy: IntervalKeys.self, forKey: key)
        try nested.encode(interval.lowerBound, forKey: .lower)
        try nested.encode(interval.upperBound, forKey: .upper)
    }
}

private enum IntervalKeys: String, CodingKey { case lower, upper }
