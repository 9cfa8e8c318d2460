import BraidContracts
import BraidCore

/// Everything a Braid process can be configured with: one YAML or JSON file plus
/// `BRAID_*` environment overrides (see ``ConfigurationLoader``). Every field has a
/// default, so an empty file (or none) runs the local stack of `make run`.
///
/// Keys are snake_case in files; the README documents each one with its default.
public struct BraidConfiguration: Codable, Sendable, Equatable {
    public var redis = RedisSection()
    public var kafka = KafkaSection()
    public var search = SearchSection()
    public var components = ComponentsSection()
    public var rankings: [String: RankingSection] = RankingSection.defaults
    public var interleaving = InterleavingSection()
    public var gateway = GatewaySection()
    public var worker = WorkerSection()
    public var feeds: [String: FeedDefinition] = BraidConfiguration.defaultFeeds
    /// Campaigns `banner` components show, each to its target segment in its window.
    public var campaigns: [Campaign] = BraidConfiguration.defaultCampaigns
    public var logging = LoggingSection()
    public var console = ConsoleSection()
    public var tracing = TracingSection()
    /// The admin token: `/metrics`, the admin and experiment routes, the console.
    public var admin = AdminSection()
    /// Where personalised routes take the user from.
    public var identity = IdentitySection()
    /// Timeouts and the connection cap of every HTTP listener (gateway, admin, worker metrics).
    public var http = HTTPSection()

    public init() {}

    public struct RedisSection: Codable, Sendable, Equatable {
        /// `redis://[user[:password]@]host[:port][/db]`; `rediss://` for TLS. In cluster mode
        /// without ``clusterNodes``, the one seed node.
        public var url = "redis://127.0.0.1:6379"
        /// One server, or a Redis Cluster (routing by hash slot).
        public var mode = RedisMode.standalone
        /// Seed URLs of a Redis Cluster (any nodes, several in case one is down); a non-empty
        /// list means cluster mode and replaces ``url``.
        public var clusterNodes: [String] = []
        /// Connections per server (per primary in cluster mode).
        public var poolSize = 4
        /// How long one command may take before it fails (and the connection is replaced).
        @Milliseconds public var commandTimeout: Duration = .milliseconds(500)
        /// First segment of every key; several deployments can share one Redis.
        public var keyPrefix = "braid"
        /// ACL user and password; set, they replace the URL's, so the URL can stay free of
        /// secrets (`BRAID_REDIS_PASSWORD_FILE` reads a mounted secret).
        public var username: String?
        public var password = Secret.none
        /// Settings of `rediss://` connections.
        public var tls = RedisTLSSection()
        public init() {}

        enum CodingKeys: String, CodingKey {
            case url, mode, clusterNodes, poolSize, commandTimeout = "commandTimeoutMs", keyPrefix, username, password, tls
        }
    }

    /// `redis.tls`: how `rediss://` connections verify the server and present a client
    /// certificate.
    public struct RedisTLSSection: Codable, Sendable, Equatable {
        /// PEM file of the CAs to trust; unset: the system's trust roots.
        public var caFile: String?
        /// PEM client certificate for mutual TLS (`tls-auth-clients yes`); needs ``keyFile``.
        public var certFile: String?
        /// PEM private key of ``certFile``.
        public var keyFile: String?
        /// Name sent as SNI and checked against the certificate; unset: each node's host.
        public var serverName: String?
        /// Whether the certificate must name the server (the chain is always verified).
        public var verifyServerName = true
        public init() {}

        /// Whether any setting differs from the defaults.
        public var isCustomised: Bool { self != Self() }
    }

    public struct KafkaSection: Codable, Sendable, Equatable {
        /// Comma-separated `host:port` list (librdkafka `bootstrap.servers`).
        public var brokers = "127.0.0.1:9092"
        public var requestsTopic = "braid.requests"
        public var deadLetterTopic = "braid.requests.dlq"
        public var eventsTopic = "braid.events"
        public var consumerGroup = "braid-workers"
        /// Consumer group of the workers' event aggregation (team-draft credit).
        public var eventsConsumerGroup = "braid-events"
        /// librdkafka `session.timeout.ms`: how long a silent consumer keeps its partitions.
        @Milliseconds public var sessionTimeout: Duration = .seconds(6)
        /// librdkafka `heartbeat.interval.ms`.
        @Milliseconds public var heartbeatInterval: Duration = .milliseconds(300)
        /// Passed to librdkafka as they are (SASL, TLS, tuning): the escape hatch.
        public var properties: [String: String] = [:]
        public init() {}

        enum CodingKeys: String, CodingKey {
            case brokers, requestsTopic, deadLetterTopic, eventsTopic, consumerGroup, eventsConsumerGroup
            case sessionTimeout = "sessionTimeoutMs", heartbeatInterval = "heartbeatIntervalMs", properties
        }
    }

    /// `search.*`: the live ranking. `source` picks the backend; each backend has its own
    /// section, read only when it is the source.
    public struct SearchSection: Codable, Sendable, Equatable {
        public var source = SearchSourceKind.xapian
        /// How long one live query may take (Elasticsearch and HTTP sources).
        @Milliseconds public var timeout: Duration = .milliseconds(800)
        public var sqlite = SQLiteSection()
        public var xapian = XapianSection()
        public var elasticsearch = ElasticsearchSection()
        public var http = HTTPSourceSection()
        public init() {}

        /// The selected backend with its settings.
        public var live: LiveSource {
            switch source {
            case .sqlite: .sqlite(sqlite)
            case .xapian: .xapian(xapian, corpus: sqlite)
            case .elasticsearch: .elasticsearch(elasticsearch)
            case .http: .http(http)
            }
        }

        enum CodingKeys: String, CodingKey {
            case source, timeout = "timeoutMs", sqlite, xapian, elasticsearch, http
        }
    }

    /// The live backend `search.source` names, with its section.
    public enum LiveSource: Sendable, Equatable {
        case sqlite(SQLiteSection)
        /// The Xapian index of the corpus at `corpus.path`.
        case xapian(XapianSection, corpus: SQLiteSection)
        case elasticsearch(ElasticsearchSection)
        case http(HTTPSourceSection)
    }

    /// `search.sqlite`: the embedded SQLite FTS5 corpus.
    public struct SQLiteSection: Codable, Sendable, Equatable {
        public var path = ".run/local/corpus.sqlite"
        /// Connections (and threads): at most this many live statements run at once, further
        /// ones wait for a connection.
        public var connections = 4
        /// Page cache of each connection, in MiB. Each connection keeps its own copy of the
        /// pages it reads, so the source holds up to `connections` times this (and the
        /// component provider, which reads the same corpus by default, twice this).
        public var pageCacheMib = 8
        public init() {}
    }

    /// `search.xapian`: a Xapian index of the corpus at `search.sqlite.path`, which stays the
    /// source of truth and of the fields a page shows.
    public struct XapianSection: Codable, Sendable, Equatable {
        /// The index directory; unset: the corpus path with `.xapian` appended.
        public var indexPath: String?
        /// Queries that run at once, each on a thread of its own.
        public var readers = 4
        /// Matches counted exactly past a page before its total becomes a lower bound.
        public var countAtLeast = 10_000
        public init() {}
    }

    /// `search.elasticsearch`: an Elasticsearch or OpenSearch index.
    public struct ElasticsearchSection: Codable, Sendable, Equatable {
        public var url = "http://127.0.0.1:9200"
        public var index = "recipes"
        /// Sent as `Authorization: ApiKey …` (the encoded key Elasticsearch returns).
        public var apiKey = Secret.none
        /// Basic authentication, when no API key is set.
        public var username: String?
        public var password = Secret.none
        public init() {}
    }

    /// `search.http`: a ranking service speaking `Schemas/ranking-source.schema.json`.
    public struct HTTPSourceSection: Codable, Sendable, Equatable {
        public var url = "http://127.0.0.1:8081/rank"
        public init() {}
    }

    /// `components.*`: where feed components' contents come from, for the gateway (live
    /// reads) and the worker (materializing) alike. Banners come from `campaigns` whatever it says.
    public struct ComponentsSection: Codable, Sendable, Equatable {
        public var source = ComponentSourceKind.sqlite
        public var sqlite = ComponentSQLiteSection()
        public init() {}
    }

    /// `components.sqlite`.
    public struct ComponentSQLiteSection: Codable, Sendable, Equatable {
        /// The corpus of recipes and users; unset: `search.sqlite.path`, the corpus searched.
        public var path: String?
        public init() {}
    }

    /// A named secondary ranking that workers materialize.
    public struct RankingSection: Codable, Sendable, Equatable {
        public var profile: RankingProfile
        public var size: Int
        /// How long a snapshot lives in Redis.
        @Seconds public var ttl: Duration
        /// Older snapshots trigger a deduplicated refresh request.
        @Seconds public var refreshAfter: Duration
        /// How long a replaced snapshot stays readable for sessions that pinned it.
        @Seconds public var grace: Duration

        public init(
            profile: RankingProfile, size: Int = 50, ttl: Duration = .seconds(86_400), refreshAfter: Duration = .seconds(3_600),
            grace: Duration = .seconds(3_600)
        ) {
            self.profile = profile
            self.size = size
            self.ttl = ttl
            self.refreshAfter = refreshAfter
            self.grace = grace
        }

        public static let defaults: [String: RankingSection] = [
            "featured": RankingSection(profile: .popularityBoosted),
            "fresh": RankingSection(profile: .newest, size: 30, ttl: .seconds(21_600), refreshAfter: .seconds(900)),
        ]

        enum CodingKeys: String, CodingKey {
            case profile, size, ttl = "ttlSeconds", refreshAfter = "refreshAfterSeconds", grace = "graceSeconds"
        }
    }

    public struct InterleavingSection: Codable, Sendable, Equatable {
        /// False serves live-only pages without touching Redis (a kill switch, and the
        /// baseline of the gateway benchmark).
        public var enabled = true
        /// The secondary ranking interleaved when a request names none.
        public var ranking = "featured"
        public var start = 0
        /// Omitted: all of the snapshot.
        public var maxDocs: Int? = nil
        /// The repeating cycle of `pattern` mode; nil: `AB`. Refused with `team_draft`, which
        /// orders each round by a coin instead (see `validate()`).
        public var pattern: String? = nil
        public var mode = InterleavingConfiguration.Mode.pattern
        /// What a request does when no snapshot exists.
        public var missPolicy = SnapshotMissPolicy.inline
        /// Experiment arms: each overrides some of the fields above for a share of sessions
        /// (stable hash of `session`). Empty: every request uses the fields above.
        public var arms: [ArmSection] = []
        /// The sequential test of every experiment's outcome; an arm's `sequential` overrides it.
        public var sequential = SequentialSection()
        public init() {}
    }

    /// `interleaving.sequential`: what a team plans its experiments for. The group-sequential
    /// test of `GET /v1/experiments/{id}` is built from it (README, "Reading a sequential
    /// decision"); the sessions that count are the decided ones (one team got more clicks).
    public struct SequentialSection: Codable, Sendable, Equatable {
        /// The smallest net preference to detect: (wins_B − wins_A) / (wins_A + wins_B).
        public var margin = 0.1
        /// Chance of deciding for the better ranking when it is better by `margin`.
        public var power = 0.8
        /// Decided sessions between looks.
        public var lookEvery = 100
        /// The most decided sessions the team can wait for; a design that needs more is refused
        /// at start. 0: no limit (the design's own maximum).
        public var maxSessions = 0
        public init() {}
    }

    /// An arm's `sequential`: the fields it sets replace `interleaving.sequential`'s.
    public struct SequentialOverride: Codable, Sendable, Equatable {
        public var margin: Double?
        public var power: Double?
        public var lookEvery: Int?
        public var maxSessions: Int?
        public init(margin: Double? = nil, power: Double? = nil, lookEvery: Int? = nil, maxSessions: Int? = nil) {
            self.margin = margin
            self.power = power
            self.lookEvery = lookEvery
            self.maxSessions = maxSessions
        }

        /// `base` with the fields set here.
        public func applied(to base: SequentialSection) -> SequentialSection {
            var out = base
            if let margin { out.margin = margin }
            if let power { out.power = power }
            if let lookEvery { out.lookEvery = lookEvery }
            if let maxSessions { out.maxSessions = maxSessions }
            return out
        }
    }

    /// One experiment arm of the interleaving; omitted fields keep the section's values.
    public struct ArmSection: Codable, Sendable, Equatable {
        public var name: String
        /// Share of sessions, in percent; the weights of all arms sum to 100.
        public var weight: Int
        public var ranking: String?
        public var start: Int?
        public var maxDocs: Int?
        public var pattern: String?
        public var mode: InterleavingConfiguration.Mode?
        /// Team-draft multileaving: the cached rankings (1 to 4, teams 1… in this order)
        /// drafted with the live ranking (team 0) instead of one `ranking`; needs `team_draft`.
        public var multileave: [String]?
        /// This experiment's sequential design, over `interleaving.sequential`.
        public var sequential: SequentialOverride?

        public init(
            name: String, weight: Int, ranking: String? = nil, start: Int? = nil, maxDocs: Int? = nil,
            pattern: String? = nil, mode: InterleavingConfiguration.Mode? = nil, multileave: [String]? = nil,
            sequential: SequentialOverride? = nil
        ) {
            self.multileave = multileave
            self.sequential = sequential
            self.name = name
            self.weight = weight
            self.ranking = ranking
            self.start = start
            self.maxDocs = maxDocs
            self.pattern = pattern
            self.mode = mode
        }
    }

    public struct GatewaySection: Codable, Sendable, Equatable {
        public var host = "127.0.0.1"
        public var port = 8080
        /// The admin listener (`/metrics`, `/v1/admin/*`, `/v1/experiments/*`, the console);
        /// unset: those routes share the public listener, behind the admin or console token.
        public var adminHost: String?
        public var adminPort = 9465
        /// HMAC key of cursors. The default is a public development key, refused by a gateway
        /// that listens beyond loopback (``BraidConfiguration/validateExposure(of:resolve:)``).
        public var cursorKey = Secret(SecretStrength.developmentCursorKey)
        /// HMAC key of impression ids (team-draft evidence); the same rules as the cursor key.
        public var impressionKey = Secret(SecretStrength.developmentImpressionKey)
        /// The keys before the last rotation: cursors and impression ids they signed stay valid
        /// until `previous_cursor_key_until` (an RFC 3339 time), so sessions survive a rotation.
        public var previousCursorKey = Secret.none
        public var previousImpressionKey = Secret.none
        public var previousCursorKeyUntil: String?
        /// Addresses or CIDR ranges of the proxies whose `X-Forwarded-For` and
        /// `X-Forwarded-Proto` are believed; empty: nobody's.
        public var trustedProxies: [String] = []
        /// Origins allowed to call the public routes from a browser (CORS); empty: CORS off.
        public var corsOrigins: [String] = []
        /// How long a cursor stays valid after its page was served.
        @Seconds public var cursorTtl: Duration = .seconds(3_600)
        /// How long after a page was served its impression id's events are accepted; at most
        /// ``ImpressionValidity/maxWindowSeconds``, shorter than the workers' impression state,
        /// so an old id can never count again once that state expired.
        @Seconds public var impressionWindow: Duration = .seconds(ImpressionValidity.defaultWindowSeconds)
        /// Most bytes of one walk's record in Redis (the A documents it has shown; 5-7 bytes
        /// a document with ids like r012345); past it the walk is paged by offset. 0: no records,
        /// every walk is paged by offset.
        public var walkMaxBytes = 32_768
        public var nearCacheBytes = 64 << 20
        /// Whether snapshot pointers and components' versions stay in memory until Redis
        /// says they changed (`CLIENT TRACKING`, broadcast mode, on a connection of its own
        /// per primary). While tracking is off or not established, ``pointerCache`` applies.
        public var keyTracking = true
        /// How often each tracking connection is checked; one that went silent is noticed
        /// within twice this, and everything it kept current is dropped.
        @Milliseconds public var keyTrackingHeartbeat: Duration = .milliseconds(500)
        /// How long page 1 reuses a snapshot pointer it read when key tracking is off or not
        /// established (its connections are still coming up, or one was lost); 0 reads Redis
        /// on every page 1 then.
        @Milliseconds public var pointerCache: Duration = .seconds(1)
        /// How often the allocator's free pages are handed back to the system (jemalloc's
        /// purge, or glibc's `malloc_trim`), so resident memory follows the bytes in use; 0: never.
        @Milliseconds public var memoryTrim: Duration = .seconds(10)
        /// How long the gateway waits for one live query.
        @Milliseconds public var liveTimeout: Duration = .seconds(1)
        /// Broad search queries served at once per process (``FTSMatchExpression/isBroad(_:)``);
        /// others wait in line up to ``liveTimeout``, then get 503 `busy`. 0: no limit.
        public var broadSearchConcurrency = 1
        public var defaultPerPage = 20
        /// Default deadline of each component in a batchGet; a slower one comes back pending.
        @Milliseconds public var batchTimeout: Duration = .milliseconds(250)
        /// How long a gateway's lease on computing a missed snapshot inline lasts: the other
        /// gateways wait for it rather than compute the same, and a holder that died blocks
        /// nobody past it. Longer than a computation takes at a million documents.
        @Seconds public var missLeaseTtl: Duration = .seconds(30)
        /// How long a page whose missed snapshot another gateway is computing waits for it;
        /// past it the page is served live-only. 0: never waits.
        @Milliseconds public var missLeaseWait: Duration = .milliseconds(500)
        /// How long a component's refresh takes to land (request, worker, write), generously:
        /// the δ of probabilistic early refresh, so a stored component read under steady traffic
        /// is asked for again a few δ before it expires. 0: only a miss asks.
        @Milliseconds public var refreshAhead: Duration = .seconds(5)
        /// How long a stopping gateway answers `/readyz` with 503 before it stops accepting
        /// connections, so that a balancer checking `/readyz` sends it nothing new first. 0:
        /// stop at once (Kubernetes removes a stopping pod from its endpoints by itself).
        @Milliseconds public var drain: Duration = .zero
        /// Token buckets per caller on the public routes (``RateLimitsSection``).
        public var rateLimits = RateLimitsSection()
        /// Which misses earn a stored snapshot (``AdmissionSection``).
        public var admission = AdmissionSection()
        public init() {}

        enum CodingKeys: String, CodingKey {
            case host, port, adminHost, adminPort, cursorKey, impressionKey, previousCursorKey, previousImpressionKey
            case previousCursorKeyUntil, trustedProxies, corsOrigins, cursorTtl = "cursorTtlSeconds"
            case impressionWindow = "impressionWindowSeconds", walkMaxBytes, nearCacheBytes, pointerCache = "pointerCacheMs"
            case keyTracking, keyTrackingHeartbeat = "keyTrackingHeartbeatMs", memoryTrim = "memoryTrimMs"
            case liveTimeout = "liveTimeoutMs", broadSearchConcurrency, defaultPerPage, batchTimeout = "batchTimeoutMs"
            case missLeaseTtl = "missLeaseTtlSeconds", missLeaseWait = "missLeaseWaitMs", refreshAhead = "refreshAheadMs", drain = "drainMs"
            case rateLimits, admission
        }
    }

    public struct WorkerSection: Codable, Sendable, Equatable {
        /// Requests processed at once, across keys and partitions.
        public var concurrency = 8
        /// Which requests run one after the other: those with the same key (the cache key
        /// they write), or all of a partition.
        public var ordering = WorkerOrdering.key
        /// Requests taken from Kafka and not finished, in all partitions.
        public var readAhead = 1_000
        /// Requests of one partition fetched and not committed (buffered, running, or
        /// finished above an unfinished one): bounds memory and what a crash redelivers.
        /// Several fetches' worth: at the cap fetching pauses, which discards what librdkafka
        /// had prefetched, and the partition must not run dry before a fetch after resuming
        /// comes back (at one fetch's worth of the local broker, a key-ordered worker sits idle
        /// between fetches; BENCHMARKS.md, worker).
        public var readAheadPerPartition = 2_000
        public var maxAttempts = 5
        /// First delay before a failed request is tried again (doubling).
        @Milliseconds public var retryBackoff: Duration = .milliseconds(200)
        /// Transient failures of one dependency in a row (no success between) after which the
        /// worker probes it and pauses its partitions if it does not answer; 0 never pauses.
        public var pauseAfterFailures = 3
        /// First delay between probes of a dependency that is down (doubling).
        @Milliseconds public var probeBackoff: Duration = .milliseconds(500)
        /// Longest delay between probes.
        @Milliseconds public var probeMaxBackoff: Duration = .seconds(5)
        /// Address of the worker's `/metrics` and `/healthz`; `0.0.0.0` to be scraped from outside.
        public var metricsHost = "127.0.0.1"
        /// Port of the worker's `/metrics`; 0 picks a free one (several workers on one host).
        public var metricsPort = 9464
        /// Items stored per feed component (clients page through them).
        public var componentItems = 60
        /// How often the fleet deletes expired walk records and impression states (kept without a
        /// Redis TTL, so that eviction cannot take them): one worker sweeps per interval.
        @Seconds public var retentionSweep: Duration = .seconds(600)
        public init() {}

        enum CodingKeys: String, CodingKey {
            case concurrency, ordering, readAhead, readAheadPerPartition, maxAttempts, retryBackoff = "retryBackoffMs"
            case pauseAfterFailures, probeBackoff = "probeBackoffMs", probeMaxBackoff = "probeMaxBackoffMs", metricsHost
            case metricsPort, componentItems, retentionSweep = "retentionSweepSeconds"
        }
    }

    /// The web console the gateway serves at `/console/` and its read-only `/v1/admin/*` routes.
    public struct ConsoleSection: Codable, Sendable, Equatable {
        public var enabled = true
        /// When set, the console and the admin routes need it (`Authorization: Bearer`), and
        /// people sign in to the console with it once for a session cookie. Required when the
        /// gateway listens beyond loopback.
        public var token = Secret.none
        /// How long a console session cookie stays valid after sign-in.
        @Seconds public var sessionTtl: Duration = .seconds(28_800)
        /// How often the gateway samples experiment outcomes for the console's charts.
        @Milliseconds public var sampleInterval: Duration = .seconds(5)
        /// Samples kept per experiment (in process; lost on restart).
        public var samples = 720
        public init() {}

        enum CodingKeys: String, CodingKey {
            case enabled, token, sessionTtl = "sessionTtlSeconds", sampleInterval = "sampleIntervalMs", samples
        }
    }

    public struct LoggingSection: Codable, Sendable, Equatable {
        public var level = LogLevel.info
        public init() {}
    }

    /// OpenTelemetry traces, exported over OTLP/HTTP (protobuf). Off unless enabled.
    public struct TracingSection: Codable, Sendable, Equatable {
        public var enabled = false
        /// The collector's traces URL, used as is (OTLP/HTTP's `/v1/traces` included).
        public var otlpEndpoint = "http://127.0.0.1:4318/v1/traces"
        /// `service.name` of the spans; unset: `braid-<command>` (`braid-gateway`, `braid-worker`, `braid-publish`).
        public var serviceName: String?
        /// Percentage of new traces kept (0–100); a span with a parent follows its parent's decision.
        public var samplePercent = 100
        public init() {}
    }
}

/// A ranking defined in the file replaces the default entry whole: its optional keys take
/// the initialiser's defaults (documented in the README).
extension BraidConfiguration.RankingSection {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = Self(profile: try c.decode(RankingProfile.self, forKey: .profile))
        self.init(
            profile: defaults.profile,
            size: try c.decodeIfPresent(Int.self, forKey: .size) ?? defaults.size,
            ttl: try c.decodeIfPresent(Seconds.self, forKey: .ttl)?.wrappedValue ?? defaults.ttl,
            refreshAfter: try c.decodeIfPresent(Seconds.self, forKey: .refreshAfter)?.wrappedValue ?? defaults.refreshAfter,
            grace: try c.decodeIfPresent(Seconds.self, forKey: .grace)?.wrappedValue ?? defaults.grace)
    }
}

/// The live backend of `search.source`.
public enum SearchSourceKind: String, NamedCases, Hashable {
    /// The embedded SQLite FTS5 index (`search.sqlite`).
    case sqlite
    /// A Xapian index of the SQLite corpus (`search.xapian`, `search.sqlite.path`): pruned top-k ranking.
    case xapian
    /// Elasticsearch or OpenSearch (`search.elasticsearch`).
    case elasticsearch
    /// A ranking service speaking `Schemas/ranking-source.schema.json` (`search.http`).
    case http
}

/// The backend of `components.source`.
public enum ComponentSourceKind: String, NamedCases, Hashable {
    /// Recipes and users of a SQLite corpus (`components.sqlite`).
    case sqlite
}

/// `worker.ordering`: which requests a worker runs one after the other.
public enum WorkerOrdering: String, NamedCases, Hashable {
    /// Requests with the same key (the cache key they write) in order; different keys of one
    /// partition concurrently. Right for I/O-bound sources.
    case key
    /// All requests of a partition in order; partitions concurrently.
    case partition
}

/// `redis.mode`: one Redis server, or a Redis Cluster.
public enum RedisMode: String, NamedCases, Hashable {
    /// One server (or a managed endpoint that hides its replicas) at `redis.url`.
    case standalone
    /// A Redis Cluster: the client reads the slot map from the seed nodes and sends each
    /// command to the primary of its keys' slot.
    case cluster
}

/// `logging.level`: swift-log's levels by name.
public enum LogLevel: String, NamedCases, Hashable {
    case trace, debug, info, notice, warning, error, critical
}
