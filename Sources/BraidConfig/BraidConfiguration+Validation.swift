import BraidCore

extension BraidConfiguration {
    /// Checks what decoding cannot: names, ranges and references between sections (values
    /// from a closed set are enums, refused while decoding with the allowed names). Run at
    /// start-up so a bad deployment fails before it serves a request, naming the key.
    public func validate() throws(ConfigurationError) {
        func fail(_ message: String) -> ConfigurationError { ConfigurationError(message: message) }
        guard redis.poolSize >= 1 else { throw fail("redis.pool_size must be at least 1") }
        guard redis.commandTimeoutMs >= 1 else { throw fail("redis.command_timeout_ms must be at least 1") }
        guard (0...65_535).contains(gateway.port) else { throw fail("gateway.port must be 0-65535 (0: any free port)") }
        guard (0...65_535).contains(worker.metricsPort) else { throw fail("worker.metrics_port must be 0-65535 (0: any free port)") }
        guard (1...10_000).contains(worker.componentItems) else { throw fail("worker.component_items must be 1-10000") }
        guard worker.concurrency >= 1 else { throw fail("worker.concurrency must be at least 1") }
        guard worker.maxAttempts >= 1 else { throw fail("worker.max_attempts must be at least 1") }
        guard worker.retryBackoffMs >= 0 else { throw fail("worker.retry_backoff_ms must not be negative") }
        guard worker.readAhead >= worker.concurrency else {
            throw fail("worker.read_ahead must be at least worker.concurrency (\(worker.concurrency))")
        }
        guard worker.readAheadPerPartition >= 2 else { throw fail("worker.read_ahead_per_partition must be at least 2") }
        guard worker.pauseAfterFailures >= 0 else { throw fail("worker.pause_after_failures must not be negative (0: never pause)") }
        guard worker.probeBackoffMs >= 1 else { throw fail("worker.probe_backoff_ms must be at least 1") }
        guard worker.probeMaxBackoffMs >= worker.probeBackoffMs else {
            throw fail("worker.probe_max_backoff_ms must be at least worker.probe_backoff_ms")
        }
        guard !gateway.cursorKey.isEmpty else { throw fail("gateway.cursor_key must not be empty") }
        guard (1...100).contains(gateway.defaultPerPage) else { throw fail("gateway.default_per_page must be 1-100") }
        for (name, ranking) in rankings {
            guard Names.isValid(name) else { throw fail("rankings.\(name): a ranking name must be \(Names.rule)") }
            guard (1...1000).contains(ranking.size) else { throw fail("rankings.\(name).size must be 1-1000") }
            guard ranking.ttlSeconds >= 60 else { throw fail("rankings.\(name).ttl_seconds must be at least 60") }
        }
        guard (0...60_000).contains(gateway.pointerCacheMs) else { throw fail("gateway.pointer_cache_ms must be 0-60000") }
        guard (1...10_000).contains(gateway.batchTimeoutMs) else { throw fail("gateway.batch_timeout_ms must be 1-10000") }
        try validateInterleaving(
            "interleaving", ranking: interleaving.ranking, start: interleaving.start, maxDocs: interleaving.maxDocs,
            pattern: interleaving.pattern)
        if !interleaving.arms.isEmpty {
            guard interleaving.arms.map(\.weight).reduce(0, +) == 100 else { throw fail("interleaving.arms: weights must sum to 100") }
            for arm in interleaving.arms {
                guard Names.isValid(arm.name) else { throw fail("interleaving.arms: an arm name must be \(Names.rule)") }
                try validateInterleaving(
                    "interleaving.arms.\(arm.name)", ranking: arm.ranking ?? interleaving.ranking, start: arm.start ?? interleaving.start,
                    maxDocs: arm.maxDocs ?? interleaving.maxDocs, pattern: arm.pattern ?? interleaving.pattern)
            }
        }
        for (name, feed) in feeds {
            guard Names.isValid(name) else { throw fail("feeds.\(name): a feed name must be \(Names.rule)") }
            guard !feed.variants.isEmpty else { throw fail("feeds.\(name).variants must not be empty") }
            guard feed.variants.map(\.weight).reduce(0, +) == 100 else { throw fail("feeds.\(name).variants: weights must sum to 100") }
            for (id, component) in feed.components {
                guard Names.isValid(id) else { throw fail("feeds.\(name).components.\(id): a component id must be \(Names.rule)") }
                if component.scope == .category, component.category == nil {
                    throw fail("feeds.\(name).components.\(id).category is required with scope category")
                }
                guard (1...100).contains(component.pageSize) else { throw fail("feeds.\(name).components.\(id).page_size must be 1-100") }
            }
            for variant in feed.variants {
                for id in variant.components where feed.components[id] == nil {
                    throw fail("feeds.\(name).variants.\(variant.name) lists '\(id)', which is not under feeds.\(name).components")
                }
            }
        }
    }

    private func validateInterleaving(
        _ path: String, ranking: String, start: Int, maxDocs: Int?, pattern: String
    ) throws(ConfigurationError) {
        func fail(_ message: String) -> ConfigurationError { ConfigurationError(message: message) }
        guard rankings[ranking] != nil else { throw fail("\(path).ranking names '\(ranking)', which is not under rankings") }
        guard start >= 0 else { throw fail("\(path).start must not be negative") }
        if let maxDocs, maxDocs < 0 { throw fail("\(path).max_docs must not be negative") }
        let letters = Set(pattern)
        guard !pattern.isEmpty, letters.isSubset(of: ["A", "B"]), letters.count == 2 else {
            throw fail("\(path).pattern must use only A and B, and both, e.g. AB or AAB")
        }
    }
}
