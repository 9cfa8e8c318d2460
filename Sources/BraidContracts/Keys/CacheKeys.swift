import BraidCore

/// The Redis key schema. Every key of one ranking (or one component) carries the same hash
/// tag `{…}`, so on Redis Cluster they share a slot and one Lua script may touch them all.
///
/// - `<prefix>:{rank:<ranking>:<qdigest>}:cur` — current snapshot version (decimal)
/// - `<prefix>:{rank:<ranking>:<qdigest>}:v:<version>` — one immutable snapshot
/// - `<prefix>:{rank:<ranking>:<qdigest>}:refresh` — refresh-ahead deduplication marker
/// - `<prefix>:{rank:<ranking>:<qdigest>}:lease` — the lease of the gateway computing a missed snapshot
/// - `<prefix>:{comp:<feed>:<type>:<sdigest>}:content` — a component's content (hash)
/// - `<prefix>:{comp:<feed>:<type>:<sdigest>}:requested` — materialize-request deduplication marker
/// - `<prefix>:{comp:<feed>:<type>:<sdigest>}:refresh` — refresh-ahead deduplication marker
/// - `<prefix>:{exp:<experiment>}:…` — team-draft aggregation of one experiment
/// - `<prefix>:{walk:<id>}` — the record of one cursor walk (``WalkRecord``; hash), its own slot
/// - `<prefix>:{retention}:lease` — held by the worker sweeping expired walk records and impression states
/// - `<prefix>:{rate:<kind>:<cdigest>}` — one caller's fleet-wide rate-limit bucket (hash)
/// - `<prefix>:{admission}:<period>` — the fleet's sightings of missed keys in one period (count-min sketch)
/// - `<prefix>:{dlq}:<topic>:<partition>:<offset>` — a request message already dead-lettered
/// - `<prefix>:{dlq-replay}:<topic>:<partition>:<offset>` — a dead letter already replayed
public struct CacheKeys: Sendable, Hashable {
    public let prefix: String

    public init(prefix: String = "braid") {
        self.prefix = prefix
    }

    /// The keys of one ranking for one query. `query` is normalised here, so callers cannot
    /// forget to.
    public func ranking(_ ranking: String, query: String) -> RankingKeys {
        RankingKeys(base: "\(prefix):{\(Self.rankingTag(ranking, query: query))}")
    }

    public func component(feed: String, type: ComponentType, scope: ComponentScope) -> String {
        "\(prefix):{\(Self.componentTag(feed: feed, type: type, scope: scope))}:content"
    }

    /// Set while a materialize request for this component is outstanding (deduplication).
    public func componentRequestMarker(feed: String, type: ComponentType, scope: ComponentScope) -> String {
        "\(prefix):{\(Self.componentTag(feed: feed, type: type, scope: scope))}:requested"
    }

    /// Key prefixes of what the gateway keeps current by key tracking: every key of every
    /// ranking (the pointers among them) and of every component (the contents among them).
    public var trackedPrefixes: [String] {
        ["\(prefix):{rank:", "\(prefix):{comp:"]
    }

    /// The hash tag of a ranking's keys (without braces), also the Kafka key of its requests.
    public static func rankingTag(_ ranking: String, query: String) -> String {
        "rank:\(ranking):\(QueryNormalizer.keyDigest(QueryNormalizer.normalize(query)))"
    }

    /// The hash tag of a component's keys (without braces), also the Kafka key of its requests.
    public static func componentTag(feed: String, type: ComponentType, scope: ComponentScope) -> String {
        "comp:\(feed):\(type.rawValue):\(QueryNormalizer.keyDigest(scope.canonical))"
    }

    /// The marker that deduplicates publishing `request`: the ranking's refresh marker, or
    /// the component's request marker. Set while such a request is outstanding.
    public func requestMarker(for request: PrecomputeRequest) -> String {
        switch request.body {
        case .ranking(let target): ranking(target.ranking, query: target.query).refreshMarker
        case .component(let target): componentRequestMarker(feed: target.feed, type: target.type, scope: target.scope)
        }
    }

    /// The fleet-wide token bucket of one caller (`kind`: `identity` or `address`), its own
    /// slot. The caller is digested: user ids and addresses stay out of key names.
    public func rateBucket(kind: String, caller: String) -> String {
        "\(prefix):{rate:\(kind):\(QueryNormalizer.keyDigest(caller))}"
    }

    /// The fleet's count-min sketch of missed keys for one halving period (a string of
    /// one-byte counters). One hash tag, so a script may read two periods at once.
    public func admissionSketch(period: Int) -> String {
        "\(prefix):{admission}:\(period)"
    }

    /// Set while a refresh of this component ahead of its expiry is outstanding (deduplication
    /// across the fleet, apart from a miss's ``componentRequestMarker(feed:type:scope:)``).
    public func componentRefreshMarker(feed: String, type: ComponentType, scope: ComponentScope) -> String {
        "\(prefix):{\(Self.componentTag(feed: feed, type: type, scope: scope))}:refresh"
    }

    /// Marks a request message as dead-lettered, so a redelivery after a crash does not
    /// dead-letter it twice.
    public func deadLetterMarker(topic: String, partition: Int32, offset: Int64) -> String {
        "\(prefix):{dlq}:\(topic):\(partition):\(offset)"
    }

    /// Marks a dead letter (by its place in the dead-letter topic) as replayed, so a second
    /// `braid ops dlq replay` over the same letters publishes nothing twice. One hash tag for
    /// all, so they can be read with one MGET on Redis Cluster too.
    public func replayMarker(topic: String, partition: Int32, offset: Int64) -> String {
        "\(prefix):{dlq-replay}:\(topic):\(partition):\(offset)"
    }

    /// The record of the walk `id` (``WalkState/idText``): a hash, alone in its slot.
    public func walk(_ id: UInt64) -> String {
        "\(prefix):{walk:\(WalkState(mode: .recorded, id: id, page: 1).idText)}"
    }

    /// Held by the one worker of the fleet that sweeps retained records in a sweep interval.
    public var retentionLease: String { "\(prefix):{retention}:lease" }

    /// What `key` is, if it is a record kept without a Redis TTL (so that a `volatile-*`
    /// eviction policy never takes it) and deleted by the retention sweep once its stored
    /// expiry has passed: a walk record, or an impression's state with its clicked set.
    public func retainedRecord(_ key: String) -> RetainedRecord? {
        let walkStart = "\(prefix):{walk:"
        if key.hasPrefix(walkStart) {
            let id = key.dropFirst(walkStart.count)
            guard id.count > 1, id.last == "}", !id.dropLast().contains("}") else { return nil }
            return .walk(key)
        }
        let experimentStart = "\(prefix):{exp:"
        guard key.hasPrefix(experimentStart), let close = key.firstIndex(of: "}"),
              key[key.index(after: close)...].hasPrefix(":imp:")
        else { return nil }
        let base = String(key[..<key.index(after: close)])
        var id = key[key.index(close, offsetBy: 6)...]
        if id.hasSuffix(":clicks") { id = id.dropLast(7) }
        guard !id.isEmpty, !id.contains(":") else { return nil }
        let experiment = ExperimentKeys(base: base)
        return .impression(state: experiment.impression(String(id)), clicks: experiment.clickedPositions(String(id)))
    }

    /// A record the retention sweep looks after (``retainedRecord(_:)``): its keys, the first
    /// the hash whose field `e` holds the expiry (seconds since 1970).
    public enum RetainedRecord: Sendable, Hashable {
        case walk(String)
        /// An impression's state (hash) and the set of its clicked positions or components.
        case impression(state: String, clicks: String)

        public var keys: [String] {
            switch self {
            case .walk(let key): [key]
            case .impression(let state, let clicks): [state, clicks]
            }
        }
    }

    public func experiment(_ experiment: String) -> ExperimentKeys {
        ExperimentKeys(base: "\(prefix):{exp:\(experiment)}")
    }

    public struct RankingKeys: Sendable, Hashable {
        let base: String
        public var pointer: String { "\(base):cur" }
        public var versionPrefix: String { "\(base):v:" }
        public func version(_ version: Int64) -> String { "\(versionPrefix)\(version)" }
        public var refreshMarker: String { "\(base):refresh" }
        /// Held by the gateway computing this snapshot inline (its `SnapshotLease`), so the fleet computes it once.
        public var lease: String { "\(base):lease" }
    }

    public struct ExperimentKeys: Sendable, Hashable {
        let base: String
        /// Hash of counters: impressions, teams, wins_a, wins_b, ties (teams 0 and 1), and
        /// `<i>-<j>:first`, `:second`, `:ties` for the other pairs of a multileave; each pair's
        /// again per snapshot age and per surface (`age:<bucket>:…`, `surface:<surface>:…`); what
        /// was not credited: `duplicates`, `late`, and `rejected:<reason>` (counted by the gateway).
        public var counters: String { "\(base):counters" }
        /// Hash of the console's samples of the outcome: field = the sampling interval's number
        /// since 1970, value = the sample's JSON; the gateways share it.
        public var history: String { "\(base):history" }
        /// Per-impression state (clicks per team so far, field `e` its expiry); no Redis TTL:
        /// the retention sweep deletes it with its clicked set (``RetainedRecord``).
        public func impression(_ id: String) -> String { "\(base):imp:\(id)" }
        /// Positions of an impression already clicked (a repeated click counts once); for a
        /// layout impression, the components already clicked.
        public func clickedPositions(_ id: String) -> String { "\(base):imp:\(id):clicks" }
        /// A layout experiment's users of one variant (hash: user key → the user's clicks).
        public func layoutUsers(_ variant: String) -> String { "\(base):layout:\(variant):users" }
        /// A layout experiment's sessions of one variant (hash: session key → 1).
        public func layoutSessions(_ variant: String) -> String { "\(base):layout:\(variant):sessions" }
    }
}

extension PrecomputeRequest {
    /// The Kafka message key of this request: the hash tag of the keys it writes. Requests
    /// for one cache key therefore share a partition and are processed in order by one worker.
    public var messageKey: String {
        switch body {
        case .ranking(let target): CacheKeys.rankingTag(target.ranking, query: target.query)
        case .component(let target): CacheKeys.componentTag(feed: target.feed, type: target.type, scope: target.scope)
        }
    }
}
