import BraidContracts
import BraidCore
import BraidRedis
import Foundation
import NIOCore

/// A layout experiment's credit in Redis, under its experiment's hash tag: per variant the
/// counters (`layout:<variant>:impressions`, `:users`, `:sessions`, `:clicks`, `:click_squares`)
/// in the experiment's counters hash, with the looks of each pair (`look:layout:<first>/<second>:<k>`:
/// a `/` is in no variant's name), and the users (each with their clicks) and sessions it has
/// seen, so that clicks per user and their variance come out exactly. The users' hashes grow with
/// the experiment's users (about 60 bytes each) and live as long as it does.
public struct LayoutExperimentStore: Sendable {
    public let redis: RedisClient
    public let keys: CacheKeys
    public let impressionTTLSeconds: Int

    public init(redis: RedisClient, keys: CacheKeys, impressionTTLSeconds: Int = ImpressionValidity.impressionStateTTLSeconds) {
        self.redis = redis
        self.keys = keys
        self.impressionTTLSeconds = impressionTTLSeconds
    }

    /// On the same Redis, keys and impression TTL as the interleaving experiments' store.
    public init(sharing experiments: ExperimentStore) {
        self.init(redis: experiments.redis, keys: experiments.keys, impressionTTLSeconds: experiments.impressionTTLSeconds)
    }

    /// Applies a `layout_impression` or `layout_click` event. Replays change nothing: an
    /// impression counts once, a click on a component of an impression once; a click whose
    /// impression event is missing counts the impression too.
    public func apply(_ event: ExperimentEvent, now: Date = Date()) async throws -> ExperimentStore.Credit {
        guard event.type.isLayout, let variant = event.variant, let user = event.userKey, let kind = event.userKind else { return .notEvidence }
        let experiment = keys.experiment(event.experiment)
        if let issuedAt = event.issuedAt,
            !ImpressionValidity.isCreditable(issuedAt: Int64(issuedAt.timeIntervalSince1970), now: Int64(now.timeIntervalSince1970))
        {
            try await redis.hincrby(experiment.counters, field: "late", by: 1)
            return .late
        }
        let component = event.type == .layoutClick ? event.component ?? "" : ""
        let reply = try await redis.evalsha(
            Self.recordScript,
            keys: [
                experiment.counters, experiment.impression(event.impression), experiment.clickedPositions(event.impression),
                experiment.layoutUsers(variant), experiment.layoutSessions(variant),
            ],
            arguments: [
                .string(event.type == .layoutClick ? "click" : "impression"), .string(variant), .string("\(kind):\(user)"),
                .string(event.sessionKey ?? ""), .string(component),
                .integer(Int64(now.timeIntervalSince1970) + Int64(impressionTTLSeconds)),
            ])
        switch reply {
        case .integer(1): return .credited
        case .integer(2): return .duplicate
        default: return .notEvidence
        }
    }

    /// KEYS[1] counters, KEYS[2] impression state, KEYS[3] clicked components, KEYS[4] the
    /// variant's users, KEYS[5] its sessions. ARGV[1] `impression` or `click`, ARGV[2] variant,
    /// ARGV[3] user, ARGV[4] session ('' for none), ARGV[5] component, ARGV[6] the state's
    /// expiry (seconds since 1970; no Redis TTL, as for ``ExperimentStore``).
    /// A user's n-th click adds 2n − 1 to `click_squares`, so it stays Σ clicks² over users.
    /// Returns 1 when something was credited, 2 for a duplicate, 0 otherwise.
    static let recordScript = RedisScript("""
        local v = 'layout:' .. ARGV[2] .. ':'
        local changed = 0
        if redis.call('HSETNX', KEYS[2], 'seen', '1') == 1 then
          redis.call('HSET', KEYS[2], 'e', ARGV[6])
          redis.call('HINCRBY', KEYS[1], v .. 'impressions', 1)
          if redis.call('HSETNX', KEYS[4], ARGV[3], 0) == 1 then redis.call('HINCRBY', KEYS[1], v .. 'users', 1) end
          if ARGV[4] ~= '' and redis.call('HSETNX', KEYS[5], ARGV[4], 1) == 1 then
            redis.call('HINCRBY', KEYS[1], v .. 'sessions', 1)
          end
          changed = 1
        elseif ARGV[1] ~= 'click' then
          redis.call('HINCRBY', KEYS[1], 'duplicates', 1)
          return 2
        end
        if ARGV[1] ~= 'click' then return changed end
        if redis.call('SADD', KEYS[3], ARGV[5]) == 0 then
          redis.call('HINCRBY', KEYS[1], 'duplicates', 1)
          return 2
        end
        local clicks = redis.call('HINCRBY', KEYS[4], ARGV[3], 1)
        redis.call('HINCRBY', KEYS[1], v .. 'clicks', 1)
        redis.call('HINCRBY', KEYS[1], v .. 'click_squares', 2 * clicks - 1)
        return 1
        """)

    /// The experiment's design is already stored as something else: its salt or weights changed.
    public struct DesignChanged: Error, CustomStringConvertible {
        public var experiment: String
        public var feed: String
        public var stored: String
        public var configured: String

        public var description: String {
            "feeds.\(feed).experiment '\(experiment)' runs with \(stored); the configuration says \(configured). Its users were split "
                + "the first way and would be counted the second: keep the salt and the variants' names and weights, or name a new experiment"
        }
    }

    /// Stores the design of a new experiment, or checks it against the stored one: the salt and
    /// the variants' names and weights may not change while an experiment runs.
    public func claim(_ design: LayoutExperimentDesign) async throws {
        let counters = keys.experiment(design.experiment).counters
        let reply = try await redis.evalsha(Self.claimScript, keys: [counters], arguments: [.string(design.design)])
        guard let stored = reply.string else { throw ExperimentStore.LookRecordError(reply: "\(reply)") }
        guard stored == design.design else {
            throw DesignChanged(experiment: design.experiment, feed: design.feed, stored: stored, configured: design.design)
        }
    }

    /// KEYS[1] counters; ARGV[1] the design: HSETNX `layout_design`, return what is stored.
    static let claimScript = RedisScript("""
        redis.call('HSETNX', KEYS[1], 'layout_design', ARGV[1])
        return redis.call('HGET', KEYS[1], 'layout_design')
        """)

    /// The outcome: the counters read, the looks now due recorded (what another gateway stored
    /// first wins), the sequential test replayed from the looks.
    public func outcome(of design: LayoutExperimentDesign) async throws -> LayoutExperimentOutcome {
        let counters = keys.experiment(design.experiment).counters
        let fields = try await redis.hgetall(counters)
        func count(_ name: String) -> Int { fields[name].flatMap { Int(String(buffer: $0)) } ?? 0 }
        let counts = design.names.map { name in
            let v = "layout:\(name):"
            return LayoutExperimentOutcome.Counts(
                users: count(v + "users"), sessions: count(v + "sessions"), impressions: count(v + "impressions"), clicks: count(v + "clicks"),
                clickSquares: count(v + "click_squares"))
        }
        var looks: [[LayoutLook]] = design.pairs.map { pair in
            let prefix = "\(ExperimentStore.lookPrefix)layout:\(design.names[pair.0])/\(design.names[pair.1]):"
            return fields.compactMap { name, value in
                guard name.hasPrefix(prefix), let look = Int(name.dropFirst(prefix.count)) else { return nil }
                return LayoutLook(look: look, stored: String(buffer: value))
            }
        }
        var due: [(pair: Int, look: LayoutLook)] = []
        for (index, pair) in design.pairs.enumerated() {
            if let look = design.dueLook(pair, counts: counts, recorded: looks[index]) { due.append((index, look)) }
        }
        if !due.isEmpty {
            var arguments: [RESPArgument] = []
            for (index, look) in due {
                let pair = design.pairs[index]
                arguments += [
                    .string("\(ExperimentStore.lookPrefix)layout:\(design.names[pair.0])/\(design.names[pair.1]):\(look.look)"), .string(look.stored),
                ]
            }
            let reply = try await redis.evalsha(ExperimentStore.recordLooksScript, keys: [counters], arguments: arguments)
            guard case .array(let values?) = reply, values.count == due.count else { throw ExperimentStore.LookRecordError(reply: "\(reply)") }
            for ((index, look), value) in zip(due, values) {
                guard let text = value.string, let stored = LayoutLook(look: look.look, stored: text) else {
                    throw ExperimentStore.LookRecordError(reply: "\(reply)")
                }
                looks[index].append(stored)
            }
        }
        let rejected = Dictionary(uniqueKeysWithValues: ExperimentStore.rejectionReasons.map { ($0, count("rejected:\($0)")) })
        return design.outcome(counts: counts, looks: looks, duplicates: count("duplicates"), late: count("late"), rejected: rejected)
    }
}
