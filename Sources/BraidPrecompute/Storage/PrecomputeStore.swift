import BraidContracts
import BraidCore
import BraidRedis
import Foundation
import NIOCore
import NIOFoundationCompat
import Tracing

/// Reads and writes precomputed content in Redis: versioned ranking snapshots behind a
/// `cur` pointer, and component contents. The workers write, the gateway reads; both
/// go through this one type so the key schema and the stored JSON cannot drift apart.
public struct PrecomputeStore: Sendable {
    public let redis: RedisClient
    public let keys: CacheKeys

    public init(redis: RedisClient, keys: CacheKeys) {
        self.redis = redis
        self.keys = keys
    }

    /// The outcome of a write: whether it took effect, or a newer version was already stored.
    public enum WriteOutcome: Sendable, Hashable {
        case written
        /// This or a newer version is stored: an old, retried or replayed request.
        case stale
    }

    /// Stores `snapshot` as a new immutable version and flips the pointer to it atomically,
    /// unless the pointer already names this or a newer version. The version it replaces
    /// stays readable for `grace` seconds, so sessions pinned to it keep paginating.
    /// Traced as a `redis.write` client span (a child of the worker's materialization span).
    public func publish(_ snapshot: RankingSnapshot, ttlSeconds: Int, graceSeconds: Int) async throws -> WriteOutcome {
        let rankingKeys = keys.ranking(snapshot.ranking, query: snapshot.query)
        return try await traceWrite(key: rankingKeys.pointer, version: snapshot.version) {
            try await writeSnapshot(snapshot, keys: rankingKeys, ttlSeconds: ttlSeconds, graceSeconds: graceSeconds)
        }
    }

    private func writeSnapshot(
        _ snapshot: RankingSnapshot, keys rankingKeys: CacheKeys.RankingKeys, ttlSeconds: Int, graceSeconds: Int
    ) async throws -> WriteOutcome {
        let reply = try await redis.evalsha(
            StorageScripts.publishSnapshot,
            keys: [rankingKeys.pointer, rankingKeys.version(snapshot.version)],
            arguments: [
                .integer(snapshot.version), .bytes(ByteBuffer(data: try snapshot.encoded())),
                .integer(Int64(ttlSeconds)), .integer(Int64(min(graceSeconds, ttlSeconds))),
                .string(rankingKeys.versionPrefix),
            ])
        return reply == .integer(1) ? .written : .stale
    }

    /// The version the pointer names, or nil when no snapshot exists.
    public func currentVersion(ranking: String, query: String) async throws -> Int64? {
        guard let text = try await redis.getString(keys.ranking(ranking, query: query).pointer) else { return nil }
        guard let version = Int64(text) else {
            throw StoredValueError(key: keys.ranking(ranking, query: query).pointer, reason: "pointer '\(text)' is not a version")
        }
        return version
    }

    /// One snapshot version, or nil when it has expired (or never existed).
    public func snapshot(ranking: String, query: String, version: Int64) async throws -> RankingSnapshot? {
        try await storedSnapshot(ranking: ranking, query: query, version: version)?.snapshot
    }

    /// One snapshot version with the size of its stored JSON (what an in-process cache of
    /// snapshots accounts for), or nil when it has expired or never existed.
    public func storedSnapshot(ranking: String, query: String, version: Int64) async throws -> (snapshot: RankingSnapshot, bytes: Int)? {
        let key = keys.ranking(ranking, query: query).version(version)
        guard let buffer = try await redis.get(key) else { return nil }
        return (try Self.decodeSnapshot(buffer, key: key), buffer.readableBytes)
    }

    private static func decodeSnapshot(_ buffer: ByteBuffer, key: String) throws -> RankingSnapshot {
        do {
            return try RankingSnapshot.decode(Array(buffer.readableBytesView))
        } catch {
            throw StoredValueError(key: key, reason: "not a snapshot: \(error)")
        }
    }

    /// What the pointer names now, with that version's snapshot unless it is `held` (a
    /// version the caller has cached): one round trip, where ``currentVersion(ranking:query:)``
    /// and then ``storedSnapshot(ranking:query:version:)`` take two in a row.
    public func currentSnapshot(ranking: String, query: String, unless held: Int64?) async throws -> CurrentSnapshotRead {
        let rankingKeys = keys.ranking(ranking, query: query)
        let reply = try await redis.evalsha(
            StorageScripts.readCurrentSnapshot, keys: [rankingKeys.pointer],
            arguments: [.string(rankingKeys.versionPrefix), .string(held.map(String.init) ?? "")])
        func unexpected() -> StoredValueError {
            StoredValueError(key: rankingKeys.pointer, reason: "unexpected reply to the snapshot read: \(reply)")
        }
        if reply.isNull { return .none }
        guard case .array(let elements?) = reply, (1...2).contains(elements.count),
              let text = elements[0].string, let version = Int64(text)
        else { throw unexpected() }
        guard elements.count == 2 else {
            guard version == held else { throw unexpected() }
            return .held(version: version)
        }
        guard case .bulkString(let stored) = elements[1] else { throw unexpected() }
        guard let buffer = stored else { return .expired(version: version) }
        let snapshot = try Self.decodeSnapshot(buffer, key: rankingKeys.version(version))
        return .read(snapshot, bytes: buffer.readableBytes)
    }

    /// The current snapshot, or nil when none exists. The pointer and the version are read
    /// in two steps; if the version expired in between, the pointer is read once more.
    public func currentSnapshot(ranking: String, query: String) async throws -> RankingSnapshot? {
        for _ in 0..<2 {
            guard let version = try await currentVersion(ranking: ranking, query: query) else { return nil }
            if let snapshot = try await snapshot(ranking: ranking, query: query, version: version) { return snapshot }
        }
        return nil
    }

    /// Stores a component's content (``StoredComponent``: the document and its item offsets)
    /// unless a newer version is stored.
    /// Traced as a `redis.write` client span, like a snapshot's.
    public func publish(_ content: ComponentContent, ttlSeconds: Int) async throws -> WriteOutcome {
        let key = keys.component(feed: content.feed, type: content.type, scope: content.scope)
        return try await traceWrite(key: key, version: content.version) { try await writeComponent(content, key: key, ttlSeconds: ttlSeconds) }
    }

    private func writeComponent(_ content: ComponentContent, key: String, ttlSeconds: Int) async throws -> WriteOutcome {
        let stored = try StoredComponent.encode(content)
        let reply = try await redis.evalsha(
            StorageScripts.publishComponent,
            keys: [key],
            arguments: [
                .integer(content.version), .string(content.stateHash),
                .bytes(ByteBuffer(bytes: stored.document)), .string(stored.offsetsText), .integer(Int64(max(1, ttlSeconds))),
            ])
        return reply == .integer(1) ? .written : .stale
    }

    /// A component's stored content, decoded, or nil when none is stored.
    public func component(feed: String, type: ComponentType, scope: ComponentScope) async throws -> ComponentContent? {
        let key = keys.component(feed: feed, type: type, scope: scope)
        guard let stored = try await storedComponent(feed: feed, type: type, scope: scope) else { return nil }
        do {
            return try stored.decoded()
        } catch {
            throw StoredValueError(key: key, reason: "not a component content: \(error)")
        }
    }

    /// A component's stored content as bytes a page can be sliced from, or nil when none is
    /// stored. A `braid.component/v1` value (which stores no offsets) is re-encoded; a
    /// value that is neither is a ``StoredValueError``.
    public func storedComponent(feed: String, type: ComponentType, scope: ComponentScope) async throws -> StoredComponent? {
        let key = keys.component(feed: feed, type: type, scope: scope)
        let fields = try await redis.hgetall(key)
        guard let content = fields["content"] else { return nil }
        do {
            guard let offsets = fields["offsets"] else { return try StoredComponent.legacy(Data(buffer: content)) }
            guard let versionText = fields["version"].map({ String(buffer: $0) }), let version = Int64(versionText) else {
                throw StoredComponentError("no version")
            }
            return try StoredComponent.parse(
                document: Array(content.readableBytesView), offsets: Array(offsets.readableBytesView), version: version,
                stateHash: fields["state_hash"].map { String(buffer: $0) } ?? "")
        } catch {
            throw StoredValueError(key: key, reason: "not a component content: \(error)")
        }
    }

    /// The stored version of a component, or nil when none is stored: one small read that
    /// tells a reader whether its in-process copy is still current.
    public func componentVersion(feed: String, type: ComponentType, scope: ComponentScope) async throws -> Int64? {
        let key = keys.component(feed: feed, type: type, scope: scope)
        let reply = try await redis.send(["HGET", .string(key), "version"])
        switch reply {
        case .bulkString(nil): return nil
        case .bulkString(let buffer?):
            guard let version = Int64(String(buffer: buffer)) else {
                throw StoredValueError(key: key, reason: "version '\(String(buffer: buffer))' is not a number")
            }
            return version
        default:
            throw StoredValueError(key: key, reason: "unexpected reply to HGET version: \(reply)")
        }
    }
}

/// A value in Redis that is not what Braid writes there (another writer, or corruption).
public struct StoredValueError: Error, Sendable, CustomStringConvertible {
    public let key: String
    public let reason: String
    public var description: String { "\(key): \(reason)" }
}

extension PrecomputeStore {
    /// One write of materialized content as a `redis.write` span: the key it writes, the
    /// version, and whether it took effect (`stale`: a newer one was already stored).
    func traceWrite(key: String, version: Int64, _ write: () async throws -> WriteOutcome) async throws -> WriteOutcome {
        try await withSpan("redis.write", ofKind: .client) { span in
            span.attributes["db.system"] = "redis"
            span.attributes["db.operation.name"] = "EVALSHA"
            span.attributes["braid.redis.key"] = key
            span.attributes["braid.version"] = Int(version)
            let outcome = try await write()
            span.attributes["braid.outcome"] = outcome == .written ? "written" : "stale"
            return outcome
        }
    }
}
