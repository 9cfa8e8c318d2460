import BraidConfig
import BraidCore
import Foundation
import Testing

@Suite("configuration loading")
struct ConfigurationLoaderTests {
    @Test func defaultsWithoutFileOrEnvironment() throws {
        let configuration = try ConfigurationLoader.load(file: nil, environment: [:])
        #expect(configuration == BraidConfiguration())
        #expect(configuration.redis.url == "redis://127.0.0.1:6379")
        #expect(configuration.rankings["featured"]?.profile == .popularityBoosted)
        #expect(configuration.worker.ordering == .key)
    }

    @Test func yamlFileOverridesDefaultsAndKeepsTheRest() throws {
        let path = try temporaryFile("""
            redis:
              url: redis://cache:6380/2
            kafka:
              properties:
                security.protocol: SASL_SSL
            rankings:
              editors:
                profile: relevance
                size: 10
                ttl_seconds: 60
                refresh_after_seconds: 30
                grace_seconds: 120
            interleaving:
              max_docs: 12
            """)
        let configuration = try ConfigurationLoader.load(file: path, environment: [:])
        #expect(configuration.redis.url == "redis://cache:6380/2")
        #expect(configuration.redis.poolSize == 4)
        #expect(configuration.kafka.properties == ["security.protocol": "SASL_SSL"])
        #expect(configuration.rankings["editors"]?.size == 10)
        #expect(configuration.rankings["featured"] != nil)
        #expect(configuration.interleaving.maxDocs == 12)
    }

    @Test func jsonFileIsAccepted() throws {
        let path = try temporaryFile(#"{"gateway": {"port": 9000}}"#, extension: "json")
        #expect(try ConfigurationLoader.load(file: path, environment: [:]).gateway.port == 9000)
    }

    @Test func environmentOverridesFile() throws {
        let path = try temporaryFile("gateway:\n  port: 9000\n")
        let configuration = try ConfigurationLoader.load(
            file: path,
            environment: ["BRAID_GATEWAY_PORT": "9100", "BRAID_KAFKA_BROKERS": "k1:9092,k2:9092", "BRAID_GATEWAY_CURSOR_KEY": "12345"])
        #expect(configuration.gateway.port == 9100)
        #expect(configuration.kafka.brokers == "k1:9092,k2:9092")
        #expect(configuration.gateway.cursorKey == "12345")
    }

    @Test func unknownKeyIsAnErrorNamingIt() throws {
        let path = try temporaryFile("redis:\n  comand_timeout_ms: 5\n")
        #expect(throws: ConfigurationError(message: "unknown configuration key 'redis.comand_timeout_ms'")) {
            try ConfigurationLoader.load(file: path, environment: [:])
        }
    }

    @Test func badValuesAreErrorsNamingTheKey() throws {
        let path = try temporaryFile("gateway:\n  port: eighty\n")
        let error = #expect(throws: ConfigurationError.self) { try ConfigurationLoader.load(file: path, environment: [:]) }
        #expect(error?.message.contains("gateway.port") == true)
        let envError = #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader.load(file: nil, environment: ["BRAID_REDIS_POOL_SIZE": "many"])
        }
        #expect(envError?.message.contains("BRAID_REDIS_POOL_SIZE") == true)
    }

    @Test(arguments: [
        ("search:\n  source: solr\n", "search.source: must be one of sqlite, xapian, elasticsearch, http, not 'solr'"),
        ("rankings:\n  x: {profile: best}\n", "rankings.x.profile: must be one of relevance, popularity_boosted, newest, not 'best'"),
        ("interleaving:\n  mode: draft\n", "interleaving.mode: must be one of pattern, team_draft, not 'draft'"),
        ("interleaving:\n  miss_policy: later\n", "interleaving.miss_policy: must be one of inline, async, not 'later'"),
        ("interleaving:\n  arms: [{name: a, weight: 100, mode: coin}]\n", "interleaving.arms.0.mode: must be one of pattern, team_draft, not 'coin'"),
        ("logging:\n  level: loud\n", "logging.level: must be one of trace, debug, info, notice, warning, error, critical, not 'loud'"),
        ("worker:\n  ordering: fifo\n", "worker.ordering: must be one of key, partition, not 'fifo'"),
        ("feeds:\n  f:\n    components: {c: {type: banners, title: T}}\n    variants: []\n", "feeds.f.components.c.type: must be one of"),
        ("feeds:\n  f:\n    components: {c: {type: carousel, title: T, scope: team}}\n    variants: []\n", "feeds.f.components.c.scope: must be one of user, segment, category, not 'team'"),
        ("feeds:\n  f:\n    components: {c: {type: carousel, title: T, style: wheel}}\n    variants: []\n", "feeds.f.components.c.style: must be one of"),
    ])
    func aValueOutsideItsSetIsALoadErrorNamingKeyValueAndAllowedValues(yaml: String, expected: String) throws {
        let path = try temporaryFile(yaml)
        let error = #expect(throws: ConfigurationError.self) { try ConfigurationLoader.load(file: path, environment: [:]) }
        #expect(error?.message.contains(expected) == true, "\(String(describing: error))")
    }

    @Test func anEnvironmentValueOutsideItsSetIsALoadErrorToo() throws {
        let error = #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader.load(file: nil, environment: ["BRAID_INTERLEAVING_MISS_POLICY": "sometimes"])
        }
        #expect(error?.message.contains("interleaving.miss_policy: must be one of inline, async, not 'sometimes'") == true, "\(String(describing: error))")
        let typed = try ConfigurationLoader.load(file: nil, environment: ["BRAID_SEARCH_SOURCE": "http", "BRAID_LOGGING_LEVEL": "debug"])
        #expect(typed.search.source == .http)
        #expect(typed.logging.level == .debug)
    }

    @Test func redisClusterAndTLSKeysLoadFromTheFileAndTheEnvironment() throws {
        let path = try temporaryFile("""
            redis:
              url: rediss://braid:secret@redis.internal:6379
              mode: cluster
              tls:
                ca_file: /etc/braid/redis-ca.pem
                server_name: redis.internal
            """)
        let file = try ConfigurationLoader.load(file: path, environment: [:])
        #expect(file.redis.mode == .cluster)
        #expect(file.redis.clusterNodes.isEmpty)
        #expect(file.redis.tls.caFile == "/etc/braid/redis-ca.pem" && file.redis.tls.serverName == "redis.internal")
        #expect(file.redis.tls.certFile == nil && file.redis.tls.verifyServerName)
        try file.validate()

        let environment = try ConfigurationLoader.load(file: path, environment: [
            "BRAID_REDIS_MODE": "standalone",
            "BRAID_REDIS_CLUSTER_NODES": "rediss://u:p@10.0.0.1:7000, rediss://u:p@10.0.0.2:7000",
            "BRAID_REDIS_TLS_CERT_FILE": "/c.pem", "BRAID_REDIS_TLS_KEY_FILE": "/c.key",
            "BRAID_REDIS_TLS_VERIFY_SERVER_NAME": "false",
        ])
        #expect(environment.redis.mode == .standalone)
        #expect(environment.redis.clusterNodes == ["rediss://u:p@10.0.0.1:7000", "rediss://u:p@10.0.0.2:7000"])
        #expect(environment.redis.tls.certFile == "/c.pem" && environment.redis.tls.keyFile == "/c.key")
        #expect(environment.redis.tls.verifyServerName == false)
        #expect(environment.redis.tls.caFile == "/etc/braid/redis-ca.pem")

        let error = #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader.load(file: nil, environment: ["BRAID_REDIS_MODE": "sharded"])
        }
        #expect(error?.message.contains("redis.mode: must be one of standalone, cluster, not 'sharded'") == true, "\(String(describing: error))")
    }

    @Test func missingOrMalformedFileIsAnError() throws {
        #expect(throws: ConfigurationError.self) { try ConfigurationLoader.load(file: "/nonexistent/braid.yaml", environment: [:]) }
        let path = try temporaryFile("redis: [unclosed\n")
        #expect(throws: ConfigurationError.self) { try ConfigurationLoader.load(file: path, environment: [:]) }
        let list = try temporaryFile("- a\n- b\n")
        #expect(throws: ConfigurationError.self) { try ConfigurationLoader.load(file: list, environment: [:]) }
    }
}

@Suite("configuration of feeds")
struct FeedConfigurationTests {
    @Test func defaultFeedsHaveVariantsCoveringAllUsersAndKnownComponents() throws {
        let configuration = try ConfigurationLoader.load(file: nil, environment: [:])
        #expect(Set(configuration.feeds.keys) == ["home", "profile"])
        for (name, feed) in configuration.feeds {
            #expect(feed.variants.map(\.weight).reduce(0, +) == 100, "\(name)")
            for variant in feed.variants {
                for id in variant.components { #expect(feed.components[id] != nil, "\(name).\(variant.name): \(id)") }
            }
        }
    }

    @Test func aFeedDefinedInTheFileReplacesTheDefaultWhole() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("braid-\(UUID().uuidString).yaml").path
        try """
            feeds:
              home:
                components:
                  only:
                    type: new_arrivals
                    title: Only
                    style: grid
                    orthogonal_scroll: false
                    width: 100
                    height: 100
                    page_size: 5
                    scope: segment
                    ttl_seconds: 600
                variants:
                  - name: all
                    weight: 100
                    components: [only]
                    prefetch: 1
            """.write(toFile: path, atomically: true, encoding: .utf8)
        let configuration = try ConfigurationLoader.load(file: path, environment: [:])
        #expect(configuration.feeds["home"]?.components.keys.sorted() == ["only"])
        #expect(configuration.feeds["profile"] != nil)
    }

    @Test func mapEntriesInTheFileNeedOnlyTheirRequiredKeys() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("braid-\(UUID().uuidString).yaml").path
        try """
            rankings:
              short: {profile: newest}
            feeds:
              home:
                components:
                  only: {type: new_arrivals, title: Only}
                variants:
                  - {name: all, weight: 100, components: [only]}
            """.write(toFile: path, atomically: true, encoding: .utf8)
        let configuration = try ConfigurationLoader.load(file: path, environment: [:])
        try configuration.validate()
        let component = try #require(configuration.feeds["home"]?.components["only"])
        #expect(component == FeedComponent(type: .newArrivals, title: "Only"))
        #expect(configuration.feeds["home"]?.variants.first?.prefetch == 2)
        #expect(configuration.rankings["short"] == BraidConfiguration.RankingSection(profile: .newest))
    }
}

@Suite("configuration of component kinds and campaigns")
struct ComponentKindConfigurationTests {
    @Test func newKeysLoadFromAFileWithDefaultsForWhatIsLeftOut() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("braid-\(UUID().uuidString).yaml").path
        try """
            feeds:
              home:
                components:
                  picks: {type: carousel, title: Picks, style: carousel, scope: segment, carousel: {auto_advance_interval_ms: 4000, wrap: false}}
                  promo: {type: banner, title: Promo, style: banner, scope: segment, segment: vip}
                  list: {type: interleaved_recipes, title: More, style: vertical_list, scope: segment, query: curry}
                variants:
                  - {name: all, weight: 100, components: [picks, promo, list]}
            campaigns:
              - {id: vip-week, title: VIP week, image_url: /v.jpg, link_url: /vip, starts_at: "2027-01-01T00:00:00Z", ends_at: "2027-01-08T00:00:00+09:00", segment: vip}
              - {id: all-year, title: All year, image_url: /a.jpg, link_url: /a, starts_at: "2027-01-01T00:00:00Z", ends_at: "2028-01-01T00:00:00Z"}
            """.write(toFile: path, atomically: true, encoding: .utf8)
        let configuration = try ConfigurationLoader.load(file: path, environment: [:])
        try configuration.validate()
        let home = try #require(configuration.feeds["home"])
        #expect(home.components["picks"]?.carousel == CarouselOptions(autoAdvanceIntervalMs: 4_000, wrap: false))
        #expect(home.components["promo"]?.scope(user: "u1") == ComponentScope(segment: "vip"))
        #expect(home.components["list"]?.query == "curry")
        #expect(home.components["list"]?.ranking == nil)
        #expect(configuration.campaigns.map(\.id) == ["vip-week", "all-year"])
        #expect(configuration.campaigns[0].endsAt == Date(timeIntervalSince1970: 1_798_761_600 + 7 * 86_400 - 9 * 3_600))
        #expect(configuration.campaigns[1].segment == "all")
    }

    @Test func aCampaignTimeThatIsNotRFC3339IsALoadErrorNamingTheKey() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("braid-\(UUID().uuidString).yaml").path
        try """
            campaigns:
              - {id: x, title: X, image_url: /x.jpg, link_url: /x, starts_at: tomorrow, ends_at: "2027-01-08T00:00:00Z"}
            """.write(toFile: path, atomically: true, encoding: .utf8)
        let error = #expect(throws: ConfigurationError.self) { try ConfigurationLoader.load(file: path, environment: [:]) }
        #expect(error?.message.contains("starts_at") == true, "\(String(describing: error))")
        #expect(error?.message.contains("RFC 3339") == true, "\(String(describing: error))")
    }
}

@Suite("configuration validation")
struct ConfigurationValidationTests {
    @Test func defaultsAreValid() throws {
        try BraidConfiguration().validate()
    }

    @Test(arguments: [
        ("interleaving.pattern must use only A and B", { @Sendable (c: inout BraidConfiguration) in c.interleaving.pattern = "AAA" }),
        ("interleaving.ranking names 'nope'", { @Sendable (c: inout BraidConfiguration) in c.interleaving.ranking = "nope" }),
        ("feeds.home.variants: weights must sum to 100", { @Sendable (c: inout BraidConfiguration) in c.feeds["home"]?.variants[0].weight = 10 }),
        ("feeds.home.variants.control lists 'ghost'", { @Sendable (c: inout BraidConfiguration) in c.feeds["home"]?.variants[0].components.append("ghost") }),
        ("rankings.Bad Name", { @Sendable (c: inout BraidConfiguration) in c.rankings["Bad Name"] = .init(profile: .relevance) }),
        ("redis.pool_size", { @Sendable (c: inout BraidConfiguration) in c.redis.poolSize = 0 }),
        ("search.sqlite.connections must be 1-64", { @Sendable (c: inout BraidConfiguration) in c.search.sqlite.connections = 0 }),
        ("search.sqlite.page_cache_mib must be 1-1024", { @Sendable (c: inout BraidConfiguration) in c.search.sqlite.pageCacheMib = 0 }),
        ("gateway.memory_trim_ms must be 0 (never) or 100-3600000", { @Sendable (c: inout BraidConfiguration) in c.gateway.memoryTrim = .milliseconds(10) }),
        ("redis.tls.cert_file and redis.tls.key_file go together", { @Sendable (c: inout BraidConfiguration) in
            c.redis.url = "rediss://cache:6379"
            c.redis.tls.certFile = "/client.pem" }),
        ("redis.tls is set but redis.url is not rediss://", { @Sendable (c: inout BraidConfiguration) in c.redis.tls.caFile = "/ca.pem" }),
        ("redis.tls is set but redis.cluster_nodes is not rediss://", { @Sendable (c: inout BraidConfiguration) in
            c.redis.url = "rediss://cache:6379"
            c.redis.clusterNodes = ["rediss://a:7000", "redis://b:7000"]
            c.redis.tls.verifyServerName = false }),
        ("redis.cluster_nodes[1] is empty", { @Sendable (c: inout BraidConfiguration) in c.redis.clusterNodes = ["redis://a:7000", " "] }),
        ("worker.read_ahead must be at least worker.concurrency", { @Sendable (c: inout BraidConfiguration) in c.worker.readAhead = 4 }),
        ("worker.read_ahead_per_partition", { @Sendable (c: inout BraidConfiguration) in c.worker.readAheadPerPartition = 1 }),
        ("worker.pause_after_failures", { @Sendable (c: inout BraidConfiguration) in c.worker.pauseAfterFailures = -1 }),
        ("worker.probe_max_backoff_ms", { @Sendable (c: inout BraidConfiguration) in c.worker.probeMaxBackoff = .milliseconds(10) }),
        ("feeds.home.components.carousel.carousel.auto_advance_interval_ms", { @Sendable (c: inout BraidConfiguration) in
            c.feeds["home"]?.components["carousel"]?.carousel?.autoAdvanceIntervalMs = 10 }),
        ("feeds.home.components.carousel.carousel.transition_ms must be shorter", { @Sendable (c: inout BraidConfiguration) in
            c.feeds["home"]?.components["carousel"]?.carousel?.transitionMs = 6_000 }),
        ("feeds.home.components.recommended.carousel is only for style carousel", { @Sendable (c: inout BraidConfiguration) in
            c.feeds["home"]?.components["recommended"]?.carousel = CarouselOptions() }),
        ("feeds.profile.components.tabs.tabs lists 'header' of type profile_header", { @Sendable (c: inout BraidConfiguration) in
            c.feeds["profile"]?.components["tabs"]?.tabs = ["recipes", "header"] }),
        ("feeds.profile.components.tabs.tabs lists 'ghost'", { @Sendable (c: inout BraidConfiguration) in
            c.feeds["profile"]?.components["tabs"]?.tabs = ["ghost"] }),
        ("feeds.profile.components.tabs.tabs must list", { @Sendable (c: inout BraidConfiguration) in c.feeds["profile"]?.components["tabs"]?.tabs = nil }),
        ("feeds.profile.components.recipes.tabs is only for profile_tabs", { @Sendable (c: inout BraidConfiguration) in
            c.feeds["profile"]?.components["recipes"]?.tabs = ["cooksnaps"] }),
        ("feeds.home.components.more.query is required", { @Sendable (c: inout BraidConfiguration) in c.feeds["home"]?.components["more"]?.query = " " }),
        ("feeds.home.components.more.ranking names 'nope'", { @Sendable (c: inout BraidConfiguration) in c.feeds["home"]?.components["more"]?.ranking = "nope" }),
        ("feeds.home: at most one interleaved_recipes", { @Sendable (c: inout BraidConfiguration) in
            let more = c.feeds["home"]?.components["more"]
            c.feeds["home"]?.components["more2"] = more }),
        ("feeds.home.components.recommended: query and ranking are only for interleaved_recipes", { @Sendable (c: inout BraidConfiguration) in
            c.feeds["home"]?.components["recommended"]?.query = "x" }),
        ("feeds.home.components.banner.scope must be segment", { @Sendable (c: inout BraidConfiguration) in c.feeds["home"]?.components["banner"]?.scope = .user }),
        ("feeds.home.components.my-week.scope must be user", { @Sendable (c: inout BraidConfiguration) in c.feeds["home"]?.components["my-week"]?.scope = .segment }),
        ("feeds.home.components.recommended.segment is only for scope segment", { @Sendable (c: inout BraidConfiguration) in
            c.feeds["home"]?.components["recommended"]?.segment = "vip" }),
        ("feeds.home.components.banner.segment must be", { @Sendable (c: inout BraidConfiguration) in c.feeds["home"]?.components["banner"]?.segment = "VIP users" }),
        ("campaigns[0]: starts_at must be before ends_at", { @Sendable (c: inout BraidConfiguration) in c.campaigns[0].endsAt = c.campaigns[0].startsAt }),
        ("campaigns[1].id 'welcome' is used twice", { @Sendable (c: inout BraidConfiguration) in c.campaigns[1].id = "welcome" }),
        ("campaigns[0].image_url", { @Sendable (c: inout BraidConfiguration) in c.campaigns[0].imageUrl = "" }),
        ("campaigns[2].segment", { @Sendable (c: inout BraidConfiguration) in c.campaigns[2].segment = "New Users" }),
    ] as [(String, @Sendable (inout BraidConfiguration) -> Void)])
    func invalidConfigurationsNameTheKey(expected: String, breakIt: @Sendable (inout BraidConfiguration) -> Void) {
        var configuration = BraidConfiguration()
        breakIt(&configuration)
        let error = #expect(throws: ConfigurationError.self) { try configuration.validate() }
        #expect(error?.message.contains(expected) == true, "\(String(describing: error))")
    }


    /// Keys that cannot take effect in their combination are refused when the file is loaded
    /// (the process validates before serving), naming the key.
    @Test(arguments: [
        ("interleaving:\n  mode: team_draft\n  pattern: AAB\n", "interleaving.pattern: only for mode pattern; team_draft orders each round by a coin"),
        ("interleaving:\n  arms: [{name: a, weight: 100, mode: team_draft, pattern: AB}]\n", "interleaving.arms.a.pattern: only for mode pattern"),
        ("interleaving:\n  mode: team_draft\n  arms: [{name: a, weight: 100, pattern: AB}]\n", "interleaving.arms.a.pattern: only for mode pattern"),
        ("interleaving:\n  pattern: AAB\n  arms: [{name: a, weight: 50, mode: team_draft}, {name: b, weight: 50, pattern: AB}]\n",
         "interleaving.pattern: no arm uses it"),
        ("interleaving:\n  mode: team_draft\n  max_docs: 0\n", "interleaving.max_docs: 0 places no document"),
        ("interleaving:\n  arms: [{name: a, weight: 100, mode: team_draft, max_docs: 0}]\n", "interleaving.arms.a.max_docs: 0 places no document"),
        ("interleaving:\n  arms: [{name: a, weight: 50}, {name: a, weight: 50}]\n", "interleaving.arms: the arm name 'a' is used twice"),
        ("interleaving:\n  arms: [{name: a, weight: 150}, {name: b, weight: -50}]\n", "interleaving.arms: every weight must be 0-100"),
        ("interleaving:\n  arms: [{name: m, weight: 100, multileave: [featured, fresh]}]\n", "interleaving.arms.m.multileave: needs mode team_draft"),
        ("interleaving:\n  arms: [{name: m, weight: 100, mode: team_draft, ranking: fresh, multileave: [featured]}]\n",
         "interleaving.arms.m.ranking: not with multileave"),
        ("interleaving:\n  arms: [{name: m, weight: 100, mode: team_draft, multileave: [featured, featured]}]\n",
         "interleaving.arms.m.multileave: the cached ranking 'featured' is listed twice"),
        ("interleaving:\n  arms: [{name: m, weight: 100, mode: team_draft, multileave: [featured, fresh, featured2, a, b]}]\n",
         "interleaving.arms.m.multileave: a multileave takes at most 4 cached rankings, not 5"),
        ("interleaving:\n  arms: [{name: m, weight: 100, mode: team_draft, multileave: []}]\n", "interleaving.arms.m.multileave: a multileave needs at least one"),
        ("interleaving:\n  arms: [{name: m, weight: 100, mode: team_draft, multileave: [featured, nope]}]\n",
         "interleaving.arms.m.multileave names 'nope', which is not under rankings"),
    ])
    func meaninglessCombinationsAreRefusedAtLoadNamingTheKey(yaml: String, expected: String) throws {
        let configuration = try ConfigurationLoader.load(file: try temporaryFile(yaml), environment: [:])
        let error = #expect(throws: ConfigurationError.self) { try configuration.validate() }
        #expect(error?.message.contains(expected) == true, "\(String(describing: error))")
    }

    /// The same keys where they do take effect.
    @Test(arguments: [
        "interleaving:\n  pattern: AAB\n",
        "interleaving:\n  mode: team_draft\n  start: 3\n  max_docs: 15\n",
        "interleaving:\n  pattern: AAB\n  arms: [{name: a, weight: 50, mode: team_draft}, {name: b, weight: 50}]\n",
        "interleaving:\n  mode: team_draft\n  arms: [{name: a, weight: 50}, {name: b, weight: 50, mode: pattern, pattern: AAAB}]\n",
        "interleaving:\n  max_docs: 0\n",
        "interleaving:\n  arms: [{name: c, weight: 50}, {name: m, weight: 50, mode: team_draft, max_docs: 10, multileave: [featured, fresh]}]\n",
    ])
    func theSameKeysWhereTheyTakeEffectAreAccepted(yaml: String) throws {
        try ConfigurationLoader.load(file: try temporaryFile(yaml), environment: [:]).validate()
    }

    @Test func optionalKeysCanBeSetFromTheEnvironmentToo() throws {
        let configuration = try ConfigurationLoader.load(
            file: nil, environment: ["BRAID_INTERLEAVING_PATTERN": "AAB", "BRAID_INTERLEAVING_MAX_DOCS": "12", "BRAID_INTERLEAVING_MODE": "team_draft"])
        #expect(configuration.interleaving.pattern == "AAB" && configuration.interleaving.maxDocs == 12)
        let error = #expect(throws: ConfigurationError.self) { try configuration.validate() }
        #expect(error?.message.hasPrefix("interleaving.pattern: only for mode pattern") == true, "\(String(describing: error))")
    }
}
