import Logging
import Synchronization

/// Reading the slot map: who to ask, how, and installing the answer.
extension ClusterRouter {
    /// Asks for a map refresh; requests made while one is pending or running are merged.
    func requestRefresh() {
        refreshRequests.continuation.yield()
    }

    /// Serves refresh requests one at a time, at least the minimum interval apart. Until a
    /// first map is known it keeps trying with the reconnect backoff.
    func refreshLoop() async {
        var failures = 0
        for await _ in refreshRequests.stream {
            let found = await refreshOnce()
            let hasMap = state.withLock { $0.map != nil }
            failures = found ? 0 : failures + 1
            if !hasMap {
                try? await Task.sleep(for: configuration.reconnectBackoff.delay(beforeRetry: failures + 1))
                requestRefresh()
            } else {
                try? await Task.sleep(for: configuration.cluster?.minimumRefreshInterval ?? .milliseconds(100))
            }
            if Task.isCancelled { return }
        }
    }

    /// Asks the known nodes (connected primaries first, then the others and the seeds) for the
    /// map; the first complete map wins, else the one covering most slots. Returns whether a
    /// map was installed.
    @discardableResult
    func refreshOnce() async -> Bool {
        let (known, pools) = state.withLock { ($0.map?.nodes ?? [], $0.pools) }
        var candidates: [RedisEndpoint] = []
        let connectedFirst = known.filter { pools[$0]?.liveConnection() != nil } + known + configuration.clusterSeeds
        for node in connectedFirst where !candidates.contains(node) { candidates.append(node) }

        var best: ClusterSlotMap?
        var lastError: RedisConnectionError?
        for node in candidates {
            do {
                let map = try await fetchMap(from: node, pool: pools[node])
                if map.isComplete {
                    best = map
                    break
                }
                if map.coveredSlots > best?.coveredSlots ?? 0 { best = map }
            } catch let error as RedisConnectionError {
                lastError = error
            } catch {
                lastError = RedisConnectionError(.protocolError, "\(node): \(error)")
            }
        }
        guard let best else {
            state.withLock { $0.refreshError = lastError }
            logger.warning("cannot read the Redis cluster slot map", metadata: ["error": "\(lastError.map { "\($0)" } ?? "no node")"])
            return false
        }
        install(best)
        return true
    }

    /// One node's view of the map: CLUSTER SHARDS, or CLUSTER SLOTS on Redis < 7.
    private func fetchMap(from node: RedisEndpoint, pool: RedisNodePool?) async throws -> ClusterSlotMap {
        let useSlots = state.withLock { $0.useClusterSlots }
        let reply = try await query(node, pool: pool, useSlots ? ["CLUSTER", "SLOTS"] : ["CLUSTER", "SHARDS"])
        if case .error(let message) = reply {
            if !useSlots, message.lowercased().contains("unknown subcommand") {
                state.withLock { $0.useClusterSlots = true }
                return try await fetchMap(from: node, pool: pool)
            }
            if message.contains("cluster support disabled") {
                throw RedisConnectionError(
                    .connectFailed, "\(node) is not a cluster node (cluster-enabled no): configure it as a single server, not a cluster")
            }
            throw RedisConnectionError(.protocolError, "\(node) answered the slot-map query with: \(message)")
        }
        let tls = configuration.tls != nil
        return try useSlots
            ? ClusterSlotMap.parse(slots: reply, askedHost: node.host)
            : ClusterSlotMap.parse(shards: reply, tls: tls, askedHost: node.host)
    }

    /// Sends a command on the node's pooled connection, or on a one-off connection.
    private func query(_ node: RedisEndpoint, pool: RedisNodePool?, _ arguments: [RESPArgument]) async throws -> RESPValue {
        if let connection = pool?.liveConnection() {
            return try await connection.send(arguments, timeout: configuration.commandTimeout)
        }
        let connection = try await connector.connect(to: node)
        defer { connection.close() }
        return try await connection.send(arguments, timeout: configuration.commandTimeout)
    }

    /// Installs a map: pools for new primaries start, pools of nodes that are no longer
    /// primaries stop (after their in-flight commands had time to answer).
    private func install(_ map: ClusterSlotMap) {
        let (created, removed, changed) = state.withLock { state -> ([RedisNodePool], [RedisNodePool], Bool) in
            let changed = state.map != map
            state.map = map
            state.epoch += 1
            if changed { state.generation += 1 }
            state.refreshError = nil
            let primaries = Set(map.primaries)
            var created: [RedisNodePool] = []
            for primary in map.primaries where state.pools[primary] == nil {
                let pool = makePool(primary)
                state.pools[primary] = pool
                created.append(pool)
            }
            let removed = state.pools.filter { !primaries.contains($0.key) }
            for endpoint in removed.keys { state.pools[endpoint] = nil }
            return (created, Array(removed.values), changed)
        }
        if changed {
            logger.info(
                "Redis cluster slot map", metadata: ["primaries": "\(map.primaries.map(\.description).joined(separator: ","))"])
        }
        for pool in created { startPool(pool) }
        for pool in removed { pool.stop() }
    }
}
