import BraidContracts
import BraidCore

extension BraidConfiguration {
    /// Checks what decoding cannot: names, ranges and references between sections (values
    /// from a closed set are enums, refused while decoding with the allowed names). Run at
    /// start-up so a bad deployment fails before it serves a request, naming the key.
    ///
    /// `role` leaves out what only another process uses: the keys of `identity.*` are checked
    /// for the gateway only, so a worker or `braid ops` sharing the gateway's file does not need
    /// the JWT key or the proxy secret.
    public func validate(for role: ServiceRole = .gateway) throws(ConfigurationError) {
        func fail(_ message: String) -> ConfigurationError { ConfigurationError(message: message) }
        guard redis.poolSize >= 1 else { throw fail("redis.pool_size must be at least 1") }
        guard (1...64).contains(search.sqlite.connections) else { throw fail("search.sqlite.connections must be 1-64") }
        guard (1...1024).contains(search.sqlite.pageCacheMib) else { throw fail("search.sqlite.page_cache_mib must be 1-1024") }
        guard (1...64).contains(search.xapian.readers) else { throw fail("search.xapian.readers must be 1-64") }
        guard (1_000...10_000_000).contains(search.xapian.countAtLeast) else {
            throw fail("search.xapian.count_at_least must be 1000-10000000")
        }
        guard redis.commandTimeout >= .milliseconds(1) else { throw fail("redis.command_timeout_ms must be at least 1") }
        try validateRedisTopology()
        guard (0...65_535).contains(gateway.port) else { throw fail("gateway.port must be 0-65535 (0: any free port)") }
        guard (0...65_535).contains(worker.metricsPort) else { throw fail("worker.metrics_port must be 0-65535 (0: any free port)") }
        guard (1...10_000).contains(worker.componentItems) else { throw fail("worker.component_items must be 1-10000") }
        guard (.seconds(1)...(.seconds(86_400))).contains(worker.retentionSweep) else {
            throw fail("worker.retention_sweep_seconds must be 1-86400")
        }
        guard worker.concurrency >= 1 else { throw fail("worker.concurrency must be at least 1") }
        guard worker.maxAttempts >= 1 else { throw fail("worker.max_attempts must be at least 1") }
        guard worker.retryBackoff >= .zero else { throw fail("worker.retry_backoff_ms must not be negative") }
        guard worker.readAhead >= worker.concurrency else {
            throw fail("worker.read_ahead must be at least worker.concurrency (\(worker.concurrency))")
        }
        guard worker.readAheadPerPartition >= 2 else { throw fail("worker.read_ahead_per_partition must be at least 2") }
        guard worker.pauseAfterFailures >= 0 else { throw fail("worker.pause_after_failures must not be negative (0: never pause)") }
        guard worker.probeBackoff >= .milliseconds(1) else { throw fail("worker.probe_backoff_ms must be at least 1") }
        guard worker.probeMaxBackoff >= worker.probeBackoff else {
            throw fail("worker.probe_max_backoff_ms must be at least worker.probe_backoff_ms")
        }
        guard !gateway.cursorKey.isEmpty else { throw fail("gateway.cursor_key must not be empty") }
        guard !gateway.impressionKey.isEmpty else { throw fail("gateway.impression_key must not be empty") }
        try validateSecrets()
        try validateConsole()
        try validateAccess()
        if role == .gateway { try validateIdentity() }
        try validateLimits()
        try validateTracing()
        guard PageSize.range.contains(gateway.defaultPerPage) else { throw fail("gateway.default_per_page must be \(PageSize.text)") }
        for (name, ranking) in rankings {
            guard Names.isValid(name) else { throw fail("rankings.\(name): a ranking name must be \(Names.rule)") }
            guard (1...1000).contains(ranking.size) else { throw fail("rankings.\(name).size must be 1-1000") }
            guard ranking.ttl >= .seconds(60) else { throw fail("rankings.\(name).ttl_seconds must be at least 60") }
        }
        guard (0...1_048_576).contains(gateway.walkMaxBytes) else { throw fail("gateway.walk_max_bytes must be 0-1048576") }
        guard (0...1_024).contains(gateway.broadSearchConcurrency) else {
            throw fail("gateway.broad_search_concurrency must be 0-1024 (0: no limit)")
        }
        guard (Duration.seconds(1) ... .seconds(ImpressionValidity.maxWindowSeconds)).contains(gateway.impressionWindow) else {
            throw fail(
                "gateway.impression_window_seconds must be 1-\(ImpressionValidity.maxWindowSeconds) (shorter than the workers' "
                    + "\(ImpressionValidity.impressionStateTTLSeconds) s impression state, so an old impression id cannot count twice)")
        }
        guard (Duration.zero ... .seconds(60)).contains(gateway.pointerCache) else { throw fail("gateway.pointer_cache_ms must be 0-60000") }
        guard (Duration.seconds(1) ... .seconds(600)).contains(gateway.missLeaseTtl) else { throw fail("gateway.miss_lease_ttl_seconds must be 1-600") }
        guard (Duration.zero ... .seconds(10)).contains(gateway.missLeaseWait), gateway.missLeaseWait < gateway.missLeaseTtl else {
            throw fail("gateway.miss_lease_wait_ms must be 0-10000 and shorter than gateway.miss_lease_ttl_seconds")
        }
        guard (Duration.zero ... .seconds(3_600)).contains(gateway.refreshAhead) else { throw fail("gateway.refresh_ahead_ms must be 0-3600000") }
        guard (Duration.zero ... .seconds(60)).contains(gateway.drain) else { throw fail("gateway.drain_ms must be 0-60000") }
        guard (Duration.milliseconds(50) ... .seconds(60)).contains(gateway.keyTrackingHeartbeat) else {
            throw fail("gateway.key_tracking_heartbeat_ms must be 50-60000")
        }
        guard gateway.memoryTrim == .zero || (Duration.milliseconds(100) ... .seconds(3_600)).contains(gateway.memoryTrim) else {
            throw fail("gateway.memory_trim_ms must be 0 (never) or 100-3600000")
        }
        guard (Duration.milliseconds(1) ... .seconds(10)).contains(gateway.batchTimeout) else { throw fail("gateway.batch_timeout_ms must be 1-10000") }
        try validateInterleavingSection()
        try validateCampaigns()
        for (name, feed) in feeds {
            guard Names.isValid(name) else { throw fail("feeds.\(name): a feed name must be \(Names.rule)") }
            guard !feed.variants.isEmpty else { throw fail("feeds.\(name).variants must not be empty") }
            guard feed.variants.map(\.weight).reduce(0, +) == 100 else { throw fail("feeds.\(name).variants: weights must sum to 100") }
            for (id, component) in feed.components {
                guard Names.isValid(id) else { throw fail("feeds.\(name).components.\(id): a component id must be \(Names.rule)") }
                if component.scope == .category, component.category == nil {
                    throw fail("feeds.\(name).components.\(id).category is required with scope category")
                }
                guard PageSize.range.contains(component.pageSize) else { throw fail("feeds.\(name).components.\(id).page_size must be \(PageSize.text)") }
                try validateKind(component, path: "feeds.\(name).components.\(id)", feed: feed)
            }
            let interleaved = feed.components.filter { $0.value.type == .interleavedRecipes }.keys.sorted()
            guard interleaved.count <= 1 else {
                throw fail("feeds.\(name): at most one interleaved_recipes component per feed (has \(interleaved.joined(separator: ", ")))")
            }
            for variant in feed.variants {
                for id in variant.components where feed.components[id] == nil {
                    throw fail("feeds.\(name).variants.\(variant.name) lists '\(id)', which is not under feeds.\(name).components")
                }
            }
            if let experiment = feed.experiment { try validateLayoutExperiment(experiment, feed: name, definition: feed) }
        }
    }

    /// A layout experiment names itself uniquely (no interleaving arm and no other feed's
    /// experiment has its name: they share `GET /v1/experiments/{id}`) and compares named variants.
    private func validateLayoutExperiment(_ experiment: LayoutExperimentSettings, feed: String, definition: FeedDefinition) throws(ConfigurationError) {
        func fail(_ message: String) -> ConfigurationError { ConfigurationError(message: "feeds.\(feed).experiment\(message)") }
        guard Names.isValid(experiment.name) else { throw fail(".name must be \(Names.rule)") }
        if interleaving.arms.contains(where: { $0.name == experiment.name }) {
            throw fail(".name '\(experiment.name)' is an interleaving arm's; an experiment id names one experiment")
        }
        if let other = feeds.first(where: { $0.key != feed && $0.value.experiment?.name == experiment.name }) {
            throw fail(".name '\(experiment.name)' is feeds.\(other.key)'s experiment too")
        }
        if let salt = experiment.salt, !(1...128).contains(salt.utf8.count) { throw fail(".salt must be 1 to 128 bytes") }
        guard definition.variants.count >= 2 else { throw fail(": a layout experiment compares at least two variants") }
        guard Set(definition.variants.map(\.name)).count == definition.variants.count else { throw fail(": variant names must differ") }
        for variant in definition.variants where !Names.isValid(variant.name) || variant.weight <= 0 {
            throw fail(": variant '\(variant.name)' must have a name that is \(Names.rule) and a weight above 0")
        }
        guard experiment.margin > 0, experiment.margin <= 2 else { throw fail(".margin must be above 0 and at most 2 (standard deviations)") }
        guard experiment.power > 0.5, experiment.power < 1 else { throw fail(".power must be between 0.5 and 1") }
        guard experiment.lookEvery >= 1 else { throw fail(".look_every must be at least 1") }
    }

    /// The keys of one component that depend on its type and style.
    private func validateKind(_ component: FeedComponent, path: String, feed: FeedDefinition) throws(ConfigurationError) {
        func fail(_ message: String) -> ConfigurationError { ConfigurationError(message: "\(path)\(message)") }
        let type = component.type
        switch type {
        case .recommendedCreators, .userStats, .profileHeader, .profileTabs:
            guard component.scope == .user else { throw fail(".scope must be user for \(type.rawValue)") }
        case .banner, .interleavedRecipes:
            guard component.scope == .segment else { throw fail(".scope must be segment for \(type.rawValue)") }
        default:
            break
        }
        if let segment = component.segment {
            guard component.scope == .segment else { throw fail(".segment is only for scope segment") }
            guard Names.isValid(segment) else { throw fail(".segment must be \(Names.rule)") }
        }
        if let carousel = component.carousel {
            guard component.style == .carousel else { throw fail(".carousel is only for style carousel") }
            guard (500...600_000).contains(carousel.autoAdvanceIntervalMs) else { throw fail(".carousel.auto_advance_interval_ms must be 500-600000") }
            guard (0...10_000).contains(carousel.transitionMs) else { throw fail(".carousel.transition_ms must be 0-10000") }
            guard carousel.transitionMs < carousel.autoAdvanceIntervalMs else {
                throw fail(".carousel.transition_ms must be shorter than auto_advance_interval_ms")
            }
        }
        if type == .profileTabs {
            guard let tabs = component.tabs, !tabs.isEmpty else { throw fail(".tabs must list the tab components of profile_tabs") }
            for tab in tabs {
                guard let tabComponent = feed.components[tab] else { throw fail(".tabs lists '\(tab)', which is not a component of this feed") }
                guard tabComponent.type.isSearchableTab else {
                    throw fail(".tabs lists '\(tab)' of type \(tabComponent.type.rawValue); tabs are profile_recipes or profile_cooksnaps")
                }
            }
        } else if component.tabs != nil {
            throw fail(".tabs is only for profile_tabs")
        }
        if type == .interleavedRecipes {
            guard let query = component.query, query.contains(where: { !$0.isWhitespace }), query.unicodeScalars.count <= 512 else {
                throw fail(".query is required for interleaved_recipes (1-512 characters, not blank)")
            }
            let ranking = component.ranking ?? interleaving.ranking
            guard rankings[ranking] != nil else { throw fail(".ranking names '\(ranking)', which is not under rankings") }
        } else if component.query != nil || component.ranking != nil {
            throw fail(": query and ranking are only for interleaved_recipes")
        }
    }

    /// What can be said of `redis.*` without parsing URLs or reading files (BraidWiring does
    /// that when it builds the client). Messages never repeat a URL: it may hold a password.
    private func validateRedisTopology() throws(ConfigurationError) {
        func fail(_ message: String) -> ConfigurationError { ConfigurationError(message: message) }
        func isTLS(_ url: String) -> Bool { url.lowercased().hasPrefix("rediss://") }
        for (index, node) in redis.clusterNodes.enumerated() where node.allSatisfy(\.isWhitespace) {
            throw fail("redis.cluster_nodes[\(index)] is empty")
        }
        let urls = redis.clusterNodes.isEmpty ? [redis.url] : redis.clusterNodes
        let urlKey = redis.clusterNodes.isEmpty ? "redis.url" : "redis.cluster_nodes"
        let tls = redis.tls
        if (tls.certFile == nil) != (tls.keyFile == nil) {
            throw fail("redis.tls.cert_file and redis.tls.key_file go together (a client certificate and its key, for mutual TLS)")
        }
        if tls.isCustomised, !urls.allSatisfy(isTLS) {
            throw fail("redis.tls is set but \(urlKey) is not rediss:// (TLS); use rediss:// or remove redis.tls")
        }
    }

    private func validateCampaigns() throws(ConfigurationError) {
        func fail(_ message: String) -> ConfigurationError { ConfigurationError(message: message) }
        var seen: Set<String> = []
        for (index, campaign) in campaigns.enumerated() {
            let path = "campaigns[\(index)]"
            guard Names.isValid(campaign.id) else { throw fail("\(path).id must be \(Names.rule)") }
            guard seen.insert(campaign.id).inserted else { throw fail("\(path).id '\(campaign.id)' is used twice") }
            for (key, value) in [("title", campaign.title), ("image_url", campaign.imageUrl), ("link_url", campaign.linkUrl)] {
                guard !value.isEmpty, value.count <= 2_048 else { throw fail("\(path).\(key) must be 1-2048 characters") }
            }
            guard campaign.startsAt < campaign.endsAt else { throw fail("\(path): starts_at must be before ends_at") }
            guard Names.isValid(campaign.segment) else { throw fail("\(path).segment must be \(Names.rule)") }
        }
    }

    /// `interleaving` and its arms: each arm's effective fields (its own, else the section's)
    /// must be valid, and no key may be set where it cannot take effect, so a typo in an
    /// experiment fails at load instead of silently running another experiment.
    private func validateInterleavingSection() throws(ConfigurationError) {
        func fail(_ message: String) -> ConfigurationError { ConfigurationError(message: message) }
        let section = interleaving
        try Self.validateSequential(section.sequential, path: "interleaving.sequential")
        for arm in section.arms {
            if let own = arm.sequential { try Self.validateSequential(own.applied(to: section.sequential), path: "interleaving.arms.\(arm.name).sequential") }
        }
        guard !section.arms.isEmpty else {
            try validateInterleaving("interleaving", ranking: section.ranking, start: section.start, maxDocs: section.maxDocs, pattern: section.pattern)
            if section.pattern != nil, section.mode == .teamDraft { throw fail(Self.patternInTeamDraft("interleaving.pattern")) }
            if section.maxDocs == 0, section.mode == .teamDraft { throw fail(Self.noDocsInTeamDraft("interleaving.max_docs")) }
            return
        }
        guard section.arms.allSatisfy({ (0...100).contains($0.weight) }) else { throw fail("interleaving.arms: every weight must be 0-100") }
        guard section.arms.map(\.weight).reduce(0, +) == 100 else { throw fail("interleaving.arms: weights must sum to 100") }
        var names: Set<String> = []
        for arm in section.arms {
            guard Names.isValid(arm.name) else { throw fail("interleaving.arms: an arm name must be \(Names.rule)") }
            guard names.insert(arm.name).inserted else { throw fail("interleaving.arms: the arm name '\(arm.name)' is used twice") }
            let path = "interleaving.arms.\(arm.name)"
            let mode = arm.mode ?? section.mode
            if arm.pattern != nil, mode == .teamDraft { throw fail(Self.patternInTeamDraft("\(path).pattern")) }
            if (arm.maxDocs ?? section.maxDocs) == 0, mode == .teamDraft { throw fail(Self.noDocsInTeamDraft("\(path).max_docs")) }
            if let multileave = arm.multileave {
                guard mode == .teamDraft else { throw fail("\(path).multileave: needs mode team_draft (multileaving is team draft only)") }
                guard arm.ranking == nil else { throw fail("\(path).ranking: not with multileave, which lists the cached rankings itself") }
                do {
                    try MultileaveConfiguration.validate(rankings: multileave)
                } catch {
                    throw fail("\(path).multileave: \(error)")
                }
                for ranking in multileave where rankings[ranking] == nil {
                    throw fail("\(path).multileave names '\(ranking)', which is not under rankings")
                }
            }
            try validateInterleaving(
                path, ranking: arm.ranking ?? section.ranking, start: arm.start ?? section.start,
                maxDocs: arm.maxDocs ?? section.maxDocs, pattern: mode == .pattern ? arm.pattern ?? section.pattern : nil)
        }
        // The section's pattern is only a default for arms in pattern mode without their own.
        if section.pattern != nil, !section.arms.contains(where: { ($0.mode ?? section.mode) == .pattern && $0.pattern == nil }) {
            throw fail("interleaving.pattern: no arm uses it (every arm is team_draft or sets its own pattern); remove it")
        }
    }

    /// Ranges only: whether a design fits `max_sessions` takes the design's computation, which
    /// the gateway does at start (`ExperimentDesigns`).
    static func validateSequential(_ section: SequentialSection, path: String) throws(ConfigurationError) {
        func fail(_ message: String) -> ConfigurationError { ConfigurationError(message: message) }
        guard section.margin >= 0.01, section.margin <= 0.9 else {
            throw fail("\(path).margin must be 0.01-0.9 (B's wins minus A's over the decided sessions)")
        }
        guard section.power >= 0.6, section.power <= 0.99 else { throw fail("\(path).power must be 0.6-0.99") }
        guard (1...1_000_000).contains(section.lookEvery) else { throw fail("\(path).look_every must be 1-1000000 decided sessions") }
        guard (0...1_000_000_000).contains(section.maxSessions) else { throw fail("\(path).max_sessions must be 0-1000000000 (0: no limit)") }
    }

    static func patternInTeamDraft(_ key: String) -> String {
        "\(key): only for mode pattern; team_draft orders each round by a coin, so a pattern would be ignored (remove it, or use mode pattern)"
    }

    static func noDocsInTeamDraft(_ key: String) -> String {
        "\(key): 0 places no document of the cached ranking, so no team_draft session could be evidence (use mode pattern for a live-only arm)"
    }

    private func validateInterleaving(
        _ path: String, ranking: String, start: Int, maxDocs: Int?, pattern: String?
    ) throws(ConfigurationError) {
        func fail(_ message: String) -> ConfigurationError { ConfigurationError(message: message) }
        guard rankings[ranking] != nil else { throw fail("\(path).ranking names '\(ranking)', which is not under rankings") }
        guard start >= 0 else { throw fail("\(path).start must not be negative") }
        if let maxDocs, maxDocs < 0 { throw fail("\(path).max_docs must not be negative") }
        if let pattern {
            let letters = Set(pattern)
            guard !pattern.isEmpty, letters.isSubset(of: ["A", "B"]), letters.count == 2 else {
                throw fail("\(path).pattern must use only A and B, and both, e.g. AB or AAB")
            }
        }
    }
}
